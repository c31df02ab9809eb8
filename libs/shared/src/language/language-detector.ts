import { UNDETERMINED_LANGUAGE } from './language-code';

/**
 * A video's language detected from its text, when its import record gives none (docs/contract.md
 * §2), with eld (the Efficient Language Detector, plain JavaScript) and its smallest n-gram
 * database: of the detectors weighed, the most accurate on the sample's labelled records and the
 * fastest (docs/relevance.md, `npm run language-detection`).
 */

/**
 * Text in the Latin script with fewer letters than this is not detected: on the sample, below it
 * the detector is right less often than a guess of the catalogue's most common language would be
 * (docs/language-detection-results.md). Letters of another script tell their language in a word
 * or two, so such text is always detected.
 */
export const MIN_DETECTED_LETTERS = 20;

/**
 * eld's languages, which it names in ISO 639-1, in ISO 639-3; a macrolanguage by its own code, as
 * the sample writes them (`zho` for Chinese, `ara`, `fas`, `msa`, `nor`…).
 */
const ISO_639_3: Readonly<Record<string, string>> = {
  am: 'amh',
  ar: 'ara',
  az: 'aze',
  be: 'bel',
  bg: 'bul',
  bn: 'ben',
  ca: 'cat',
  cs: 'ces',
  da: 'dan',
  de: 'deu',
  el: 'ell',
  en: 'eng',
  es: 'spa',
  et: 'est',
  eu: 'eus',
  fa: 'fas',
  fi: 'fin',
  fr: 'fra',
  gu: 'guj',
  he: 'heb',
  hi: 'hin',
  hr: 'hrv',
  hu: 'hun',
  hy: 'hye',
  is: 'isl',
  it: 'ita',
  ja: 'jpn',
  ka: 'kat',
  kn: 'kan',
  ko: 'kor',
  ku: 'kur',
  lo: 'lao',
  lt: 'lit',
  lv: 'lav',
  ml: 'mal',
  mr: 'mar',
  ms: 'msa',
  nl: 'nld',
  no: 'nor',
  or: 'ori',
  pa: 'pan',
  pl: 'pol',
  pt: 'por',
  ro: 'ron',
  ru: 'rus',
  sk: 'slk',
  sl: 'slv',
  sq: 'sqi',
  sr: 'srp',
  sv: 'swe',
  ta: 'tam',
  te: 'tel',
  th: 'tha',
  tl: 'tgl',
  tr: 'tur',
  uk: 'ukr',
  ur: 'urd',
  vi: 'vie',
  yo: 'yor',
  zh: 'zho',
};

const LETTER = /\p{L}/gu;
const LATIN = /\p{Script=Latin}/u;

/** What the detector reads of a video: its title and description (docs/contract.md §2). */
export function languageText(title: string, description: string): string {
  return description ? `${title}\n${description}` : title;
}

/**
 * How many letters a text has, all of them Latin, counting no further than `upTo`; undefined when
 * one of them (before `upTo`) is of another script.
 */
export function latinLetters(text: string, upTo = Infinity): number | undefined {
  let letters = 0;
  for (const [letter] of text.matchAll(LETTER)) {
    if (!LATIN.test(letter)) return undefined;
    if (++letters >= upTo) break;
  }
  return letters;
}

/** Whether a text is too short to detect: Latin letters only, fewer than MIN_DETECTED_LETTERS. */
export function tooShortToDetect(text: string): boolean {
  const letters = latinLetters(text, MIN_DETECTED_LETTERS);
  return letters !== undefined && letters < MIN_DETECTED_LETTERS;
}

/** A detector's verdict on a text: an ISO 639-1 code, or '' when it has none. */
export type Iso6391Detector = (text: string) => string;

/** The ISO 639-3 code of a detector's verdict; undetermined when it has none, or none in ISO 639-3. */
export function iso6393(code: string): string {
  return ISO_639_3[code] ?? UNDETERMINED_LANGUAGE;
}

/** The language of a text (ISO 639-3): undetermined when it is too short to tell. */
export function languageOf(text: string, detect: Iso6391Detector): string {
  return tooShortToDetect(text) ? UNDETERMINED_LANGUAGE : iso6393(detect(text));
}

export interface LanguageDetector {
  /** The language of a video's text (`languageText`), by the import's rule. */
  languageOf: (text: string) => string;
  /** The detector's own verdict (ISO 639-3) on any text, however short: for measuring the rule. */
  verdict: (text: string) => string;
}

let loading: Promise<LanguageDetector> | undefined;

/**
 * The detector, loaded on first use and kept: its n-gram database lives in the heap, so only a
 * process that imports videos pays for it. eld exports its modules to `import` only, so it is
 * loaded by a dynamic import (a `require` would find no export).
 */
export function loadLanguageDetector(): Promise<LanguageDetector> {
  loading ??= import('eld/extrasmall').then(({ eld }) => {
    const detect: Iso6391Detector = (text) => eld.detect(text).language;
    return {
      languageOf: (text) => languageOf(text, detect),
      verdict: (text) => iso6393(detect(text)),
    };
  });
  return loading;
}
