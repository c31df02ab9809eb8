import fc from 'fast-check';
import { ProblemException } from '@app/shared/http/problem';
import { viewOf } from '../engine/search-answers';
import type { SearchCriteria } from '../engine/search-criteria';
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

const BASE64URL = [...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_'];

const word = fc.string({
  minLength: 6,
  maxLength: 20,
  unit: fc.constantFrom(...'abcdefghijklmnopqrstuvwxyz'),
});

/** Any position a search can hand out: scores, dates and ids, with or without corrections. */
const arbitraryPosition: fc.Arbitrary<CursorPosition> = fc.record(
  {
    walk: fc.constant('w'.repeat(22)),
    view: fc.constant('v'.repeat(11)),
    after: fc.tuple(fc.double({ min: 0, max: 1e4, noNaN: true }), fc.nat(), fc.uuid()),
    lastId: fc.uuid(),
    page: fc.integer({ min: 2, max: 10_000 }),
    corrections: fc.dictionary(word, word, { maxKeys: 4 }),
  },
  { requiredKeys: ['walk', 'after', 'lastId', 'page', 'corrections'] },
);

/** The texts a cursor carries that a reader must not find in it. */
function plainTexts(carried: CursorPosition, ...bound: string[]): string[] {
  const texts = [
    ...bound,
    carried.walk,
    carried.lastId,
    String(carried.page),
    ...Object.entries(carried.corrections).flat(),
    ...(carried.view ? [carried.view] : []),
    '"corrections"',
    '"lastId"',
  ];
  // A short text (a page number) can occur by chance in random characters.
  return texts.filter((text) => text.length >= 6);
}

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

  it('is one URL-safe token', () => {
    expect(cursors.encode(search, caller, position)).toMatch(/^[\w-]+$/);
  });

  it('shows nothing of what it carries, raw or decoded, whatever the position', () => {
    fc.assert(
      fc.property(arbitraryPosition, (carried) => {
        const token = cursors.encode(search, caller, carried);
        const decoded = Buffer.from(token, 'base64url').toString('latin1');
        for (const text of plainTexts(carried, search, caller)) {
          expect(token).not.toContain(text);
          expect(decoded).not.toContain(text);
        }
        expect(cursors.decode(token, search, caller)).toEqual(carried);
      }),
    );
  });

  it('pads what it carries to whole blocks, and stays far within the bound on `cursor`', () => {
    fc.assert(
      fc.property(arbitraryPosition, (carried) => {
        const sealed = Buffer.from(cursors.encode(search, caller, carried), 'base64url');
        // IV and tag around the padded plaintext.
        expect((sealed.length - 12 - 16) % 128).toBe(0);
      }),
    );
    // Every word of the longest q corrected, each to a longer word.
    const largest = {
      ...position,
      corrections: Object.fromEntries(
        Array.from({ length: 64 }, (_, i) => [`w${i}`.padEnd(3, 'y'), 'z'.repeat(20)]),
      ),
    };
    expect(cursors.encode(search, caller, largest).length).toBeLessThan(4_096);
  });

  it('seals each cursor anew: the same position twice gives two different cursors', () => {
    expect(cursors.encode(search, caller, position)).not.toBe(cursors.encode(search, caller, position));
  });

  it('refuses a cursor with any byte changed', () => {
    const token = cursors.encode(search, caller, position);
    const sealed = Buffer.from(token, 'base64url');
    fc.assert(
      fc.property(fc.nat(sealed.length - 1), fc.integer({ min: 1, max: 255 }), (at, flip) => {
        const altered = Buffer.from(sealed);
        altered[at]! ^= flip;
        expect(refusal(() => cursors.decode(altered.toString('base64url'), search, caller))).toMatch(
          /not issued|altered/,
        );
      }),
      { numRuns: 500 },
    );
  });

  it('refuses a cursor with any character changed, cut short or lengthened', () => {
    const token = cursors.encode(search, caller, position);
    const edited = fc.oneof(
      fc
        .tuple(fc.nat(token.length - 1), fc.constantFrom(...BASE64URL))
        .filter(([at, char]) => token[at] !== char)
        .map(([at, char]) => `${token.slice(0, at)}${char}${token.slice(at + 1)}`),
      fc.nat(token.length - 1).map((cut) => token.slice(0, cut)),
      fc.string({ minLength: 1, unit: fc.constantFrom(...BASE64URL) }).map((more) => `${token}${more}`),
    );
    fc.assert(
      fc.property(edited, (altered) => {
        expect(refusal(() => cursors.decode(altered, search, caller))).toBeDefined();
      }),
      { numRuns: 500 },
    );
  });

  it('refuses a cursor of the previous, signed format as stale', () => {
    const body = Buffer.from(JSON.stringify({ v: 2, search, caller, ...position })).toString('base64url');
    expect(refusal(() => cursors.decode(`${body}.${'m'.repeat(43)}`, search, caller))).toMatch(
      /another version/,
    );
  });

  it('works across processes that share the secret', () => {
    const other = new SearchCursors({ jwtSecret: 'j'.repeat(32) }, 60_000, () => now);
    expect(other.decode(cursors.encode(search, caller, position), search, caller)).toEqual(position);
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
