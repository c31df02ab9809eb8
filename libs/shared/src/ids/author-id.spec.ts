import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { AUTHOR_ID_MAX_CHARACTERS, AUTHOR_ID_RULE, isValidAuthorId, isValidSubject } from './author-id';

describe('isValidAuthorId (contract §3)', () => {
  it.each([
    ['plain ASCII', 'author-1', true],
    ['one character', 'a', true],
    ['U+FFFD itself (well-formed)', 'x\uFFFD', true],
    ['a surrogate pair (one emoji)', 'x\u{1F600}', true],
    ['a zero-width space (format character)', 'acc-\u200bx', true],
    ['a byte order mark (format character)', 'caf\u00e9\ufeff', true],
    ['a line separator (not a control)', 'a\u2028b', true],
    ['a no-break space', 'acc-x\u00a0', true],
    ['a noncharacter (well-formed)', 'a\uFFFE', true],
    ['128 emoji (256 UTF-16 units)', '\u{1F600}'.repeat(AUTHOR_ID_MAX_CHARACTERS), true],
    ['empty', '', false],
    ['129 characters', 'a'.repeat(AUTHOR_ID_MAX_CHARACTERS + 1), false],
    ['129 emoji', '\u{1F600}'.repeat(AUTHOR_ID_MAX_CHARACTERS + 1), false],
    ['a lone high surrogate at the end', 'x\uD800', false],
    ['the last high surrogate alone', 'x\uDBFF', false],
    ['a lone low surrogate', 'x\uDC00y', false],
    ['the last low surrogate alone', '\uDFFF', false],
    ['a reversed pair (low then high)', 'x\uDC00\uD800', false],
    ['a high surrogate before a non-surrogate', '\uD83Dx', false],
    ['a pair then a lone high', '\u{1F600}\uD83D', false],
    ['NUL', 'a\u0000b', false],
    ['a tab', 'a\tb', false],
    ['a newline', 'a\n', false],
    ['a carriage return', '\ra', false],
    ['ESC', '\u001b[31m', false],
    ['DEL', 'a\u007f', false],
    ['a C1 control (NEL)', 'a\u0085', false],
    ['the last C1 control', 'a\u009f', false],
  ])('%s → %p', (_name, value, ok) => {
    expect(isValidAuthorId(value)).toBe(ok);
  });

  it.each([undefined, null, 42, ['a'], { sub: 'a' }])('a non-string (%p) is no author id', (value) => {
    expect(isValidAuthorId(value)).toBe(false);
  });

  it('the rule says its bounds', () => {
    expect(AUTHOR_ID_RULE).toMatch(/^must be 1 to 128 characters/);
  });

  /** What MySQL's driver, ioredis and createHash make of a string: its UTF-8 bytes. */
  const utf8 = (value: string) => Buffer.from(value, 'utf8');
  /** Well-formed: its UTF-8 bytes read back as the same string (nothing became U+FFFD). */
  const wellFormed = (value: string) => utf8(value).toString('utf8') === value;

  it('accepts exactly the well-formed strings of 1–128 code points without control characters', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 140 }), (value) => {
        const codePoints = [...value];
        const expected =
          wellFormed(value) &&
          codePoints.length >= 1 &&
          codePoints.length <= AUTHOR_ID_MAX_CHARACTERS &&
          !codePoints.some((c) => /\p{Cc}/u.test(c));
        expect(isValidAuthorId(value)).toBe(expected);
      }),
      { numRuns: 2000 },
    );
  });

  it('two different valid ids never have the same bytes or hash (nothing collapses into U+FFFD)', () => {
    const id = fc.string({ unit: 'binary', minLength: 1, maxLength: 20 }).filter(isValidAuthorId);
    fc.assert(
      fc.property(id, id, (a, b) => {
        fc.pre(a !== b);
        expect(utf8(a).equals(utf8(b))).toBe(false);
        expect(createHash('sha256').update(a).digest('hex')).not.toBe(
          createHash('sha256').update(b).digest('hex'),
        );
      }),
    );
  });

  it('every string with an unpaired surrogate is refused, wherever the surrogate stands', () => {
    const surrogate = fc.integer({ min: 0xd800, max: 0xdfff }).map((code) => String.fromCharCode(code));
    const text = fc.string({ unit: 'grapheme', maxLength: 60 });
    fc.assert(
      fc.property(text, surrogate, text, (before, lone, after) => {
        const value = `${before}${lone}${after}`;
        // A high surrogate followed by a low one written around it forms a pair: not lone.
        fc.pre(!wellFormed(value));
        expect(isValidAuthorId(value)).toBe(false);
      }),
    );
  });
});

describe('isValidSubject (a token\u2019s sub)', () => {
  it.each([
    ['an author id', 'user-1', true],
    ['one with spaces inside', 'a b', true],
    ['only spaces', '   ', false],
    ['only a no-break space', '\u00a0', false],
    ['empty', '', false],
    ['a lone surrogate', 'user-1\uD800', false],
    ['a control character', 'user-1\u0000', false],
  ])('%s → %p', (_name, value, ok) => {
    expect(isValidSubject(value)).toBe(ok);
  });
});
