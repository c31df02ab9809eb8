/**
 * The one rule for an author id, wherever it enters (docs/contract.md §3): a token's `sub`, an
 * `authorId` in a query or path, an import record.
 *
 * Ids are compared byte for byte (§2), so they must have bytes: an unpaired surrogate has no UTF-8
 * form, and MySQL's driver, Redis's and `createHash` each write it as U+FFFD, which would make
 * `x\uD800`, `x\uDBFF` and `x\uFFFD` one author. U+FFFD itself is an ordinary character and stays
 * allowed; only what would turn into it is refused. Control characters (C0, DEL, C1) are refused
 * as no identity provider issues them and logs and terminals act on them. Format characters such
 * as U+200B and U+FEFF stay allowed: ids that differ by them are different authors.
 */

/** The most characters (code points, not UTF-16 units) an author id may have. */
export const AUTHOR_ID_MAX_CHARACTERS = 128;

/** `\p{Cs}` matches only unpaired surrogates under the `u` flag (a pair reads as one code point). */
const AUTHOR_ID = new RegExp(`^[^\\p{Cc}\\p{Cs}]{1,${AUTHOR_ID_MAX_CHARACTERS}}$`, 'u');

/** Whether a value may be an author id. */
export function isValidAuthorId(value: unknown): value is string {
  return typeof value === 'string' && AUTHOR_ID.test(value);
}

/** What the rule asks, after the name of the value it refused (`authorId …`, a token's `sub …`). */
export const AUTHOR_ID_RULE =
  `must be 1 to ${AUTHOR_ID_MAX_CHARACTERS} characters of well-formed Unicode ` +
  '(no unpaired surrogate) with no control character';

/**
 * Whether a value may be a token's `sub`: an author id that is not only white space, since a
 * subject names someone who signs in, and no identity provider issues a blank one.
 */
export function isValidSubject(value: unknown): value is string {
  return isValidAuthorId(value) && value.trim() !== '';
}

/** What a subject must be, after the name of the value refused. */
export const SUBJECT_RULE = `${AUTHOR_ID_RULE}, and not only white space`;
