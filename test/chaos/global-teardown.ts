import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { RESULTS_FILE, type ScenarioResult } from './results';

/** The order, so the table reads the same whichever files ran and in what order. */
const ORDER = [
  'kill storm',
  'storage faults',
  'Elasticsearch outage',
  'MySQL restart',
  'fuzzing',
  'token attacks',
  'boundaries',
  'soak',
  'webhook receiver outage',
  'erasure storm',
  'trash operation storm',
  'MySQL restored from an earlier backup',
  'Elasticsearch node lost (two nodes, one replica)',
  'cursor storm',
  'erasures beside purges',
  'one dead receiver beside a healthy one',
  'an attacker beside the users',
  'Redis Cluster failover',
  'rolling deploy',
  'a store blinks under three APIs',
];
const DOC = resolve(__dirname, '../../docs/reliability.md');
const START = '<!-- chaos table: written by test/chaos/global-teardown.ts -->';
const END = '<!-- end of chaos table -->';
const COLUMNS = ['scenario', 'run', 'load', 'faults injected', 'expected', 'observed', 'met'];

type Row = ScenarioResult & { run: string };

const cell = (text: string) => text.replace(/\|/g, '/').replace(/\n/g, ' ');

function toLine(row: Row): string {
  const cells = [row.scenario, row.run, row.load, row.faults, row.expected, row.observed];
  return `| ${cells.map(cell).join(' | ')} | ${row.met ? 'yes' : '**no**'} |`;
}

/**
 * The rows of the table already in the document, so a run of one file keeps the others' rows
 * (aligned by Prettier or not; cells never hold a `|`, see `cell`).
 */
function previousRows(doc: string): Row[] {
  const start = doc.indexOf(START);
  const end = doc.indexOf(END);
  if (start < 0 || end < start) return [];
  return doc
    .slice(start + START.length, end)
    .split('\n')
    .filter((line) => line.startsWith('|'))
    .map((line) =>
      line
        .replace(/^\|/, '')
        .replace(/\|$/, '')
        .split('|')
        .map((part) => part.trim()),
    )
    .filter(
      (cells) => cells.length === COLUMNS.length && cells[0] !== 'scenario' && !/^:?-+:?$/.test(cells[0]!),
    )
    .map(([scenario, run, load, faults, expected, observed, met]) => ({
      scenario: scenario!,
      run: run!,
      load: load!,
      faults: faults!,
      expected: expected!,
      observed: observed!,
      met: met === 'yes',
    }));
}

/** Prints this run's chaos table and merges it into docs/reliability.md (scenario by scenario). */
export default function chaosTeardown(): void {
  if (!existsSync(RESULTS_FILE)) return;
  const run = new Date().toISOString().slice(0, 10);
  const fresh = readFileSync(RESULTS_FILE, 'utf8')
    .trim()
    .split('\n')
    .map((line) => ({ ...(JSON.parse(line) as ScenarioResult), run }));
  const header = [`| ${COLUMNS.join(' | ')} |`, `|${COLUMNS.map(() => '---').join('|')}|`];
  console.log(`\n${[...header, ...fresh.map(toLine)].join('\n')}\n`);

  const doc = existsSync(DOC)
    ? readFileSync(DOC, 'utf8')
    : `# Reliability under faults\n\n${START}\n${END}\n`;
  const rows = new Map(previousRows(doc).map((row) => [row.scenario, row]));
  for (const row of fresh) rows.set(row.scenario, row);
  const rank = (row: Row) => (ORDER.includes(row.scenario) ? ORDER.indexOf(row.scenario) : ORDER.length);
  const table = [...header, ...[...rows.values()].sort((a, b) => rank(a) - rank(b)).map(toLine)].join('\n');
  const start = doc.indexOf(START);
  const end = doc.indexOf(END);
  writeFileSync(
    DOC,
    start >= 0 && end > start
      ? `${doc.slice(0, start + START.length)}\n\n${table}\n\n${doc.slice(end)}`
      : `${doc.trimEnd()}\n\n${START}\n\n${table}\n\n${END}\n`,
  );
}
