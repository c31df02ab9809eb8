import { ProblemException } from '@app/shared/http/problem';
import { viewOf } from './engine/search-answers';
import type { SearchCriteria } from './engine/search-criteria';
import { fingerprint, newWalk, SearchCursors, type CursorPosition } from './search-cursor';

const criteria: SearchCriteria = { q: 'pandas dataframe', sort: 'relevance' };
const position: CursorPosition = {
  walk: 'w'.repeat(22),
  view: 'v'.repeat(11),
  after: [3.25, 1_700_000_000_000, 'id-20'],
  lastId: 'id-20',
  page: 2,
  corrections: { pnadas: 'pandas' },
};

/** The 400 problem's reason for `cursor`, or undefined when it decodes. */
function refusal(decode: () => unknown): string | undefined {
  try {
    decode();
    return undefined;
  } catch (error) {
    if (!(error instanceof ProblemException)) throw error;
    expect(error.getStatus()).toBe(400);
    expect(error.body.errors?.map((e) => e.name)).toEqual(['cursor']);
    return error.body.errors![0]!.reason;
  }
}

describe('SearchCursors', () => {
  let now = 1_000_000;
  const cursors = new SearchCursors({ jwtSecret: 'j'.repeat(32) }, 60_000, () => now);
  const search = fingerprint(criteria);
  const caller = 'caller-1';

  it('gives back the position it encoded, for the same search', () => {
    expect(cursors.decode(cursors.encode(search, caller, position), search, caller)).toEqual(position);
  });

  it('is opaque: URL-safe, and nothing of the position readable as plain text', () => {
    const token = cursors.encode(search, caller, position);
    expect(token).toMatch(/^[\w-]+\.[\w-]+$/);
    expect(token).not.toContain('id-20');
  });

  it('refuses a cursor with any byte changed, even a re-encoded payload', () => {
    const token = cursors.encode(search, caller, position);
    const [body, mac] = token.split('.') as [string, string];
    const forged = Buffer.from(
      Buffer.from(body, 'base64url').toString().replace('"page":2', '"page":9'),
    ).toString('base64url');
    expect(refusal(() => cursors.decode(`${forged}.${mac}`, search, caller))).toMatch(/not issued|altered/);
    const flipped = `${body}.${mac.startsWith('A') ? 'B' : 'A'}${mac.slice(1)}`;
    expect(refusal(() => cursors.decode(flipped, search, caller))).toMatch(/not issued|altered/);
  });

  it("refuses another deployment's cursor (another key)", () => {
    const foreign = new SearchCursors({ cursorSecret: 'c'.repeat(32) }, 60_000, () => now);
    expect(refusal(() => cursors.decode(foreign.encode(search, caller, position), search, caller))).toMatch(
      /not issued/,
    );
  });

  it.each(['', 'abc', 'a.b.c', 'not base64!.x', '%%%.%%%'])('refuses the malformed %p', (token) => {
    expect(refusal(() => cursors.decode(token, search, caller))).toBeDefined();
  });

  it('refuses a cursor of another search, whatever changed', () => {
    const token = cursors.encode(search, caller, position);
    for (const other of [
      { ...criteria, q: 'pandas series' },
      { ...criteria, sort: 'newest' as const },
      { ...criteria, authorId: 'a1' },
      { ...criteria, from: new Date('2020-01-01T00:00:00Z') },
    ]) {
      expect(refusal(() => cursors.decode(token, fingerprint(other), caller))).toMatch(/another search/);
    }
    // Whitespace around q is not a different search.
    expect(cursors.decode(token, fingerprint({ ...criteria, q: ' pandas dataframe ' }), caller)).toEqual(
      position,
    );
  });

  it('refuses a cursor handed to another caller, whose walk it would otherwise extend or close', () => {
    const token = cursors.encode(search, caller, position);
    expect(refusal(() => cursors.decode(token, search, 'caller-2'))).toMatch(/another caller/);
  });

  it('names each walk anew, and each point in time by a short view that never shows its id', () => {
    expect(newWalk()).toMatch(/^[\w-]{22}$/);
    expect(newWalk()).not.toBe(newWalk());
    expect(viewOf('pit-1')).toMatch(/^[\w-]{11}$/);
    expect(viewOf('pit-1')).toBe(viewOf('pit-1'));
    expect(viewOf('pit-1')).not.toBe(viewOf('pit-2'));
  });

  it('refuses a cursor after its time to live', () => {
    const token = cursors.encode(search, caller, position);
    now += 60_001;
    expect(refusal(() => cursors.decode(token, search, caller))).toMatch(/expired/);
  });
});
