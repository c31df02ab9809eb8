/** What a scenario did and saw, for the chaos table (test/chaos/results.ts) and the tests' assertions. */
export interface ScenarioReport {
  load: string;
  faults: string;
  expected: string;
  observed: string;
  /** Each way the expectation was not met; empty when it was. */
  violations: string[];
}
