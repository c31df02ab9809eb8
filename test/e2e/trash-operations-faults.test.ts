import { trashStorm } from '../support/scenarios/trash-operations';

/** The trash-operations chaos row (issue 29) in miniature; `npm run chaos` runs it with 100,000 videos. */
describe('emptying a trash through worker kills and a Redis flush', () => {
  it('completes once, with exact progress, each deletion started once and every video purged', async () => {
    const report = await trashStorm({
      videos: 3_000,
      batchSize: 100,
      kills: 2,
      killEveryMs: 500,
      sweepIntervalMs: 1_000,
      flushRedis: true,
      waitForPurges: true,
      timeoutMs: 240_000,
    });
    expect(report.violations).toEqual([]);
    expect(report.observed).toContain('done 3000/3000');
  }, 420_000);
});
