import { rollingDeploy } from '../support/scenarios/rolling-deploy';
import { recordReport } from './results';

describe('chaos: rolling deploys of two APIs and two workers under load', () => {
  it("fails no request but with a draining API's 503; loses, repeats and drops no deletion or event", async () => {
    const report = await rollingDeploy({
      videos: 600,
      deletes: 300,
      beforeMs: 5_000,
      afterMs: 10_000,
      searchRate: 40,
      rollouts: 3,
      endpointLagMs: 1_000,
      workerDrainMs: 5_000,
    });
    recordReport('rolling deploy', report);
    expect(report.violations).toEqual([]);
  }, 900_000);
});
