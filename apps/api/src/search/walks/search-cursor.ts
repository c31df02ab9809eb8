import {
  createCipheriv,
  createDecipheriv,
  createHash,
  createHmac,
  createSecretKey,
  hkdfSync,
  randomBytes,
  type KeyObject,
} from 'node:crypto';
import { ProblemException } from '@app/shared/http/problem';
import type { RankPosition } from '../engine/search-answers';
import { BOUND_PARAMETERS, boundValues, type SearchCriteria } from '../engine/search-criteria';

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
  v: 3;
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

/** The secret a cursor key is derived from (see the `SearchCursors` constructor). */
function cursorSecret({ cursorSecret, jwtSecret }: { cursorSecret?: string; jwtSecret?: string }): Buffer {
  if (cursorSecret) return Buffer.from(cursorSecret);
  if (jwtSecret) return createHmac('sha256', jwtSecret).update('search-cursor').digest();
  return randomBytes(32);
}

const CIPHER = 'aes-256-gcm';
const IV_BYTES = 12;
const TAG_BYTES = 16;
/** The plaintext is padded to a multiple of this, so a cursor's length says little of what it holds. */
const PAD_BYTES = 128;
/** Bound into every cursor's authentication tag: a cursor of another format never decrypts as this one. */
const FORMAT = Buffer.from('search-cursor/v3');

const invalid = (reason: string) => ProblemException.badRequest([{ name: 'cursor', reason }]);
const STALE = 'cursor is from another version of this service; search again';
const malformed = () => invalid('cursor is malformed: pass nextCursor exactly as a search answered it');

/**
 * Opaque cursors (docs/contract.md §7): the position, its search, its caller and its expiry sealed
 * with AES-256-GCM under the API's key, as base64url of IV, ciphertext and tag. Sealed, not only
 * signed: nothing in a cursor, the typo corrections least of all, may tell a client what the
 * search found or which words the index holds. A client can neither read nor forge one, nor use
 * another deployment's, and every API process of one deployment accepts every other's.
 */
export class SearchCursors {
  private readonly key: KeyObject;

  /**
   * `secret`: SEARCH_CURSOR_SECRET, else a secret derived from JWT_SECRET (a separate purpose, so a
   * cursor never doubles as a token signature); with neither, a secret of this process alone. The
   * cipher's key is derived from it with HKDF, so the secret's length and form do not matter.
   */
  constructor(
    secret: { cursorSecret?: string; jwtSecret?: string },
    readonly ttlMs: number,
    private readonly now: () => number = Date.now,
  ) {
    const derived = hkdfSync('sha256', cursorSecret(secret), Buffer.alloc(0), FORMAT, 32);
    this.key = createSecretKey(Buffer.from(derived));
  }

  encode(search: string, caller: string, position: CursorPosition): string {
    const payload: Payload = { v: 3, search, caller, expires: this.now() + this.ttlMs, ...position };
    const json = Buffer.from(JSON.stringify(payload));
    // JSON ignores trailing white space: the padding needs no length of its own.
    const plain = Buffer.alloc(Math.ceil(json.length / PAD_BYTES) * PAD_BYTES, ' ');
    json.copy(plain);
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv(CIPHER, this.key, iv).setAAD(FORMAT);
    const sealed = Buffer.concat([iv, cipher.update(plain), cipher.final(), cipher.getAuthTag()]);
    return sealed.toString('base64url');
  }

  /** The position of a cursor of this search handed to this caller; a 400 problem for anything else. */
  decode(token: string, search: string, caller: string): CursorPosition {
    // The previous format (`<payload>.<mac>`) lived five minutes; one still held after an upgrade is stale.
    if (/^[\w-]+\.[\w-]+$/.test(token)) throw invalid(STALE);
    const sealed = /^[\w-]+$/.test(token) ? Buffer.from(token, 'base64url') : undefined;
    // Only the canonical spelling: a last character whose unused bits differ would decode the same.
    if (!sealed || sealed.length <= IV_BYTES + TAG_BYTES || sealed.toString('base64url') !== token)
      throw malformed();
    const payload = this.open(sealed);
    if (payload.v !== 3) throw invalid(STALE);
    if (payload.search !== search)
      throw invalid(`cursor belongs to another search: ${boundParameters} must stay the same`);
    if (payload.caller !== caller) throw invalid('cursor was handed to another caller; search again');
    if (payload.expires < this.now()) throw invalid('cursor has expired; search again');
    const { walk, view, after, lastId, page, corrections } = payload;
    return { walk, ...(view ? { view } : {}), after, lastId, page, corrections };
  }

  /** The payload of a sealed cursor; a 400 problem when it was not sealed under this key, as it is. */
  private open(sealed: Buffer): Payload {
    const iv = sealed.subarray(0, IV_BYTES);
    const tag = sealed.subarray(sealed.length - TAG_BYTES);
    let plain: string;
    try {
      const decipher = createDecipheriv(CIPHER, this.key, iv).setAAD(FORMAT).setAuthTag(tag);
      plain = Buffer.concat([
        decipher.update(sealed.subarray(IV_BYTES, sealed.length - TAG_BYTES)),
        decipher.final(),
      ]).toString();
    } catch {
      throw invalid('cursor was not issued by this service or was altered');
    }
    // Authentic, so written by a process of this deployment: only an older format fails to parse.
    try {
      return JSON.parse(plain) as Payload;
    } catch {
      throw invalid(STALE);
    }
  }
}
