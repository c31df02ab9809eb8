import {
  createHash,
  createHmac,
  createSecretKey,
  randomBytes,
  timingSafeEqual,
  type KeyObject,
} from 'node:crypto';
import { ProblemException } from '@app/shared/http/problem';
import type { RankPosition } from './engine/search-answers';
import { BOUND_PARAMETERS, boundValues, type SearchCriteria } from './engine/search-criteria';

/** Where a walk through a search's results stands: what the page after the last one shown needs. */
export interface CursorPosition extends RankPosition {
  /**
   * The walk the cursor belongs to: a random name, the same for every cursor of one walk. The point
   * in time the walk reads is kept in Redis under it (`PointInTimeLeases`), never in the cursor.
   */
  walk: string;
  /** The page number of the next answer. */
  page: number;
}

interface Payload extends CursorPosition {
  v: 2;
  /** The search the cursor belongs to (`fingerprint`). */
  search: string;
  /** The caller it was handed to (`callerId` of the subject): nobody else may follow it. */
  caller: string;
  /** Epoch milliseconds after which the cursor is refused. */
  expires: number;
}

/**
 * The search a cursor walks: the criteria that select and order its results, as `CURSOR_BINDING`
 * binds them (not `limit`, which may change from page to page).
 */
export function fingerprint(criteria: SearchCriteria): string {
  return createHash('sha256')
    .update(JSON.stringify(boundValues(criteria)))
    .digest('base64url')
    .slice(0, 22);
}

/** `q, authorId, dateFrom, dateTo and sort`: the parameters a cursor is bound to, as a sentence. */
const boundParameters = `${BOUND_PARAMETERS.slice(0, -1).join(', ')} and ${BOUND_PARAMETERS.at(-1)}`;

/** A new walk's name: 128 random bits. */
export function newWalk(): string {
  return randomBytes(16).toString('base64url');
}

/** The bytes of the cursor key (see the `SearchCursors` constructor). */
function cursorKey({ cursorSecret, jwtSecret }: { cursorSecret?: string; jwtSecret?: string }): Buffer {
  if (cursorSecret) return Buffer.from(cursorSecret);
  if (jwtSecret) return createHmac('sha256', jwtSecret).update('search-cursor').digest();
  return randomBytes(32);
}

const invalid = (reason: string) => ProblemException.badRequest([{ name: 'cursor', reason }]);

/**
 * Opaque cursors (docs/contract.md §7): the position as base64url JSON, then an HMAC-SHA256 of it
 * under the API's key, so a client can neither forge a position nor use another deployment's
 * cursor, and every API process of one deployment accepts every other's.
 */
export class SearchCursors {
  /** Imported once: an HMAC under a raw buffer imports the key again on every page. */
  private readonly key: KeyObject;

  /**
   * `secret`: SEARCH_CURSOR_SECRET, else a key derived from JWT_SECRET (a separate purpose, so a
   * cursor's MAC never doubles as a token signature); with neither, a key of this process alone.
   */
  constructor(
    secret: { cursorSecret?: string; jwtSecret?: string },
    readonly ttlMs: number,
    private readonly now: () => number = Date.now,
  ) {
    this.key = createSecretKey(cursorKey(secret));
  }

  encode(search: string, caller: string, position: CursorPosition): string {
    const payload: Payload = { v: 2, search, caller, expires: this.now() + this.ttlMs, ...position };
    const body = Buffer.from(JSON.stringify(payload)).toString('base64url');
    return `${body}.${this.mac(body).toString('base64url')}`;
  }

  /** The position of a cursor of this search handed to this caller; a 400 problem for anything else. */
  decode(token: string, search: string, caller: string): CursorPosition {
    const [body, mac, ...rest] = token.split('.');
    if (!body || !mac || rest.length > 0 || !/^[\w-]+$/.test(body) || !/^[\w-]+$/.test(mac))
      throw invalid('cursor is malformed: pass nextCursor exactly as a search answered it');
    const expected = this.mac(body);
    const given = Buffer.from(mac, 'base64url');
    if (given.length !== expected.length || !timingSafeEqual(given, expected))
      throw invalid('cursor was not issued by this service or was altered');
    let payload: Payload;
    try {
      payload = JSON.parse(Buffer.from(body, 'base64url').toString()) as Payload;
    } catch {
      throw invalid('cursor is malformed: pass nextCursor exactly as a search answered it');
    }
    if (payload.v !== 2) throw invalid('cursor is from another version of this service; search again');
    if (payload.search !== search)
      throw invalid(`cursor belongs to another search: ${boundParameters} must stay the same`);
    if (payload.caller !== caller) throw invalid('cursor was handed to another caller; search again');
    if (payload.expires < this.now()) throw invalid('cursor has expired; search again');
    const { walk, view, after, lastId, page, corrections } = payload;
    return { walk, ...(view ? { view } : {}), after, lastId, page, corrections };
  }

  private mac(body: string): Buffer {
    return createHmac('sha256', this.key).update(body).digest();
  }
}
