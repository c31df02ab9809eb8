import { soak } from '../support/scenarios/soak';

/**
 * Scenario 7 of the reliability issue in miniature (40 s); `npm run chaos` runs it for ten minutes.
 * @runs-alone: it watches the API's and the worker's memory over time.
 */
describe('soak: mixed search, delete and restore traffic', () => {
  it('answers every request 2xx while the API and worker memory stays flat', async () => {
    const report = await soak({
      seconds: 40,
      rate: 20,
      concurrency: 4,
      videos: 500,
      warmup: 0.25,
      window: 0.375,
    });
    expect(report.violations).toEqual([]);
  }, 180_000);
});
