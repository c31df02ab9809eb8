import { rollingDeploy } from '../support/scenarios/rolling-deploy';

/** A rolling deploy of two APIs and two workers under load (docs/reliability.md); `npm run chaos` runs it longer. */
describe('rolling deploy: two APIs behind a round-robin proxy and two workers, replaced one at a time', () => {
  it("fails no request but with a draining API's 503; loses, repeats and drops no deletion or event", async () => {
    const report = await rollingDeploy({
      videos: 60,
      deletes: 30,
      beforeMs: 2_000,
      afterMs: 3_000,
      searchRate: 10,
      rollouts: 1,
      endpointLagMs: 300,
      workerDrainMs: 2_000,
    });
    expect(report.violations).toEqual([]);
  }, 300_000);
});
