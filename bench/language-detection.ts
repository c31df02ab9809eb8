/**
 * `npm run language-detection`: how well the import's language detection agrees with the sample's
 * labels. Each labelled record of the sample goes through the import's own path with its label
 * taken away (`toImportedVideo` with the detector the importer loads), and its detected language
 * is compared with the label: precision and recall per language, agreement overall. A second table
 * takes the detector's own verdict on Latin-script text by length, beside a guess of the band's
 * most common label: where the detector is right less often, the import says `und` instead
 * (`MIN_DETECTED_LETTERS`). Writes docs/language-detection-results.md, and fails when a target is
 * missed (docs/relevance.md). Needs no service.
 */
import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { importRecordSchema, toImportedVideo } from '@app/shared/catalogue/import-record';
import { openJsonLines } from '@app/shared/catalogue/jsonl-reader';
import { UNDETERMINED_LANGUAGE } from '@app/shared/language/language-code';
import {
  latinLetters,
  languageText,
  loadLanguageDetector,
  MIN_DETECTED_LETTERS,
} from '@app/shared/language/language-detector';
import { PATHS } from './lib/kit';
import { host, markdownTable } from './lib/report';

/** What the import's detection must keep to (docs/relevance.md). */
const TARGETS = { agreement: 0.9, precision: 0.93 };

/** Bands of Latin letters, each from its number up to the next. */
const BANDS = [0, 10, MIN_DETECTED_LETTERS, 30, 50, 100];

interface Labelled {
  label: string;
  /** What the import stores when the record gives no language. */
  detected: string;
  /** The detector's own verdict, however short the text. */
  verdict: string;
  /** Its letters when all are Latin; undefined when some are of another script. */
  latin: number | undefined;
}

interface Tally {
  labelled: number;
  detected: number;
  right: number;
}

const pct = (part: number, whole: number) => (whole === 0 ? '–' : `${((100 * part) / whole).toFixed(1)}%`);

/**
 * Precision and recall per language, most labelled first, then most detected; the languages no
 * record is labelled with on one row (`others`), each named with its count.
 */
function perLanguage(records: Labelled[]): {
  table: string;
  others: string;
  right: number;
  determined: number;
} {
  const tallies = new Map<string, Tally>();
  const tally = (code: string) => {
    const found = tallies.get(code) ?? { labelled: 0, detected: 0, right: 0 };
    tallies.set(code, found);
    return found;
  };
  for (const { label, detected } of records) {
    tally(label).labelled += 1;
    tally(detected).detected += 1;
    if (detected === label) tally(label).right += 1;
  }
  const sorted = [...tallies].sort(
    ([a, x], [b, y]) => y.labelled - x.labelled || y.detected - x.detected || a.localeCompare(b),
  );
  const labels = sorted.filter(([, t]) => t.labelled > 0);
  const unlabelled = sorted.filter(([code, t]) => t.labelled === 0 && code !== UNDETERMINED_LANGUAGE);
  const row = (code: string, t: Tally) => [
    code,
    t.labelled,
    t.detected,
    t.right,
    pct(t.right, t.detected),
    pct(t.right, t.labelled),
  ];
  const right = records.filter(({ label, detected }) => label === detected).length;
  const determined = records.filter(({ detected }) => detected !== UNDETERMINED_LANGUAGE).length;
  const undetermined = tallies.get(UNDETERMINED_LANGUAGE)?.detected ?? 0;
  const rows = [
    ...labels.map(([code, t]) => row(code, t)),
    ['others', 0, unlabelled.reduce((sum, [, t]) => sum + t.detected, 0), 0, '–', '–'],
    [UNDETERMINED_LANGUAGE, 0, undetermined, '–', '–', '–'],
    [
      '**all**',
      records.length,
      `${determined} determined`,
      right,
      pct(right, determined),
      pct(right, records.length),
    ],
  ];
  return {
    table: markdownTable(['language', 'labelled', 'detected', 'right', 'precision', 'recall'], rows),
    others: unlabelled.map(([code, t]) => `${code} ${t.detected}`).join(', '),
    right,
    determined,
  };
}

/** The detector's verdict on Latin-script text, by letters, against the band's most common label. */
function shortText(records: Labelled[]): string {
  const rows = BANDS.map((from, n) => {
    const to = BANDS[n + 1] ?? Infinity;
    const band = records.filter(({ latin }) => latin !== undefined && latin >= from && latin < to);
    const labels = new Map<string, number>();
    for (const { label } of band) labels.set(label, (labels.get(label) ?? 0) + 1);
    const [common, count] = [...labels].sort((a, b) => b[1] - a[1])[0] ?? ['–', 0];
    return [
      to === Infinity ? `${from}+` : `${from}–${to - 1}`,
      band.length,
      pct(band.filter(({ label, verdict }) => label === verdict).length, band.length),
      `${common}: ${pct(count, band.length)}`,
    ];
  });
  return markdownTable(['letters', 'records', 'detector right', 'most common label'], rows);
}

async function main(): Promise<void> {
  const loadStarted = performance.now();
  const detector = await loadLanguageDetector();
  const loadMs = performance.now() - loadStarted;
  const records: Labelled[] = [];
  let unlabelled = 0;
  let detectMs = 0;
  const timedLanguageOf = (text: string) => {
    const started = performance.now();
    const language = detector.languageOf(text);
    detectMs += performance.now() - started;
    return language;
  };
  for await (const { value } of (await openJsonLines(PATHS.sample)).lines()) {
    const parsed = importRecordSchema.safeParse(value);
    if (!parsed.success) continue;
    const label = parsed.data.language;
    if (!label) {
      unlabelled += 1;
      continue;
    }
    const { content } = toImportedVideo({ ...parsed.data, language: undefined }, timedLanguageOf);
    const text = languageText(content.title, content.description);
    records.push({
      label,
      detected: content.language,
      verdict: detector.verdict(text),
      latin: latinLetters(text),
    });
  }

  const { table, others, right, determined } = perLanguage(records);
  const checks: [string, boolean][] = [
    [
      `the detected language is the label's for at least ${pct(TARGETS.agreement, 1)} of the labelled records`,
      right / records.length >= TARGETS.agreement,
    ],
    [
      `a determined language (not \`und\`) is the label's at least ${pct(TARGETS.precision, 1)} of the time`,
      right / determined >= TARGETS.precision,
    ],
  ];
  const verdicts = checks.map(([check, met]) => `- ${met ? 'met' : '**missed**'}: ${check}`).join('\n');
  const cost =
    `Detecting a record's language took ${((1000 * detectMs) / records.length).toFixed(0)} µs on average, from the text ` +
    `of its title and description; the detector loaded in ${loadMs.toFixed(0)} ms.`;
  const bands = shortText(records);
  const othersLine = `Others, languages no record is labelled with: ${others || 'none'}.`;
  console.log(`${table}\n\n${othersLine}\n\n${bands}\n\n${cost}\n\n${verdicts}`);
  writeFileSync(
    resolve(PATHS.docs, 'language-detection-results.md'),
    '# Language detection results\n\n' +
      `Generated by \`npm run language-detection\` on ${new Date().toISOString().slice(0, 10)} over the ` +
      `${records.length} records of the sample that have a language (${unlabelled} have none), on ${host()}, ` +
      `${process.platform}. Each record's language is detected from its title and description as the ` +
      'import does when a record gives none, and compared with its label. See ' +
      '[relevance.md](relevance.md#languages) for the method and the choices.\n\n' +
      '## Per language\n\nPrecision: of the records detected as the language, how many are labelled ' +
      'so; recall: of the records labelled so, how many were detected as it. The labels name the ' +
      "language a talk is given in, which is not always its title's and description's.\n\n" +
      `${table}\n\n${othersLine} \`und\`: too short to tell.\n\n${cost}\n\n` +
      `## Short text\n\nThe detector's own verdict on text whose letters are all Latin, by their number, ` +
      "beside the share of the band's most common label. Below " +
      `${MIN_DETECTED_LETTERS} letters the import stores \`und\` instead.\n\n${bands}\n\n${verdicts}\n`,
  );
  if (!checks.every(([, met]) => met)) process.exitCode = 1;
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
