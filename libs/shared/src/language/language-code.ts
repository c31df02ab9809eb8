/**
 * A video's language (docs/contract.md §2) is an ISO 639-3 code, as the sample writes them: `eng`,
 * `spa`, `rus`, `zho`… An import record may give one; otherwise it is detected from the text
 * (language-detector.ts).
 */

/** ISO 639-3's code for a language not determined: text too short to tell, or a row stored before videos had one. */
export const UNDETERMINED_LANGUAGE = 'und';

const LANGUAGE_CODE = /^[a-z]{3}$/;

/** Whether a value has the form of an ISO 639-3 code: three lowercase ASCII letters. */
export function isLanguageCode(value: unknown): value is string {
  return typeof value === 'string' && LANGUAGE_CODE.test(value);
}

/** What the rule asks, after the name of the value it refused. */
export const LANGUAGE_CODE_RULE = 'must be an ISO 639-3 code: three lowercase letters, such as eng or spa';
