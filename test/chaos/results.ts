import { appendFileSync, mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import type { ScenarioReport } from '../support/scenarios/report';

/** One row of the chaos table: what was done to the system, what should hold, and what did. */
export interface ScenarioResult {
  scenario: string;
  load: string;
  faults: string;
  expected: string;
  observed: string;
  met: boolean;
}

export const RESULTS_FILE = resolve(__dirname, '../../.cache/chaos/results.jsonl');

export function record(result: ScenarioResult): void {
  mkdirSync(resolve(RESULTS_FILE, '..'), { recursive: true });
  appendFileSync(RESULTS_FILE, `${JSON.stringify(result)}\n`);
}

/** Records a shared scenario's report: met when it found no violation. */
export function recordReport(scenario: string, { violations, ...report }: ScenarioReport): void {
  record({ scenario, ...report, met: violations.length === 0 });
}
