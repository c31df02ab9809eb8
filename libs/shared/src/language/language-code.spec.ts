import fc from 'fast-check';
import { isLanguageCode, UNDETERMINED_LANGUAGE } from './language-code';

/** Strings near a code: lowercase letters mixed with capitals, digits, look-alikes and anything else. */
const nearCodes = fc
  .array(
    fc.oneof(
      { weight: 6, arbitrary: fc.constantFrom(...'abcdefghijklmnopqrstuvwxyz') },
      { weight: 2, arbitrary: fc.constantFrom('A', 'Z', '0', '-', ' ', '\n', 'é', 'е', 'ı', 'ſ', 'K', 'ａ') },
      { weight: 1, arbitrary: fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }) },
    ),
    { maxLength: 5 },
  )
  .map((characters) => characters.join(''));

/** The rule in other words: three characters, each from a to z. */
const threeLowercaseLetters = (value: string): boolean =>
  value.length === 3 && [...value].every((character) => character >= 'a' && character <= 'z');

describe('isLanguageCode (contract §2: ISO 639-3)', () => {
  it.each(['eng', 'spa', 'zho', UNDETERMINED_LANGUAGE])('%s is a code', (code) => {
    expect(isLanguageCode(code)).toBe(true);
  });

  it.each(['', 'en', 'engl', 'ENG', 'Eng', 'en1', 'en-', 'ñan', 'еng', ' eng', 'eng ', 'eng\n'])(
    '%p is not',
    (value) => {
      expect(isLanguageCode(value)).toBe(false);
    },
  );

  it.each([undefined, null, 42, ['eng']])('a non-string (%p) is not', (value) => {
    expect(isLanguageCode(value)).toBe(false);
  });

  it('accepts three lowercase ASCII letters and refuses any other string', () => {
    fc.assert(
      fc.property(nearCodes, (value) => {
        expect(isLanguageCode(value)).toBe(threeLowercaseLetters(value));
      }),
      { numRuns: 2_000 },
    );
  });
});
