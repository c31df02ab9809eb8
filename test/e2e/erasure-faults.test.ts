import { erasureStorm } from '../support/scenarios/erasure-storm';

/** The erasure fault test of issue 21 in miniature; `npm run chaos` runs it with 5,000 videos. */
describe('an erasure through worker kills and a Redis flush', () => {
  it('completes once, with exact progress, and leaves no row, object, document or outbox row', async () => {
    const report = await erasureStorm({
      videos: 300,
      batchSize: 25,
      kills: 2,
      killEveryMs: 700,
      timeoutMs: 120_000,
    });
    expect(report.violations).toEqual([]);
    expect(report.observed).toContain('done 300/300');
  }, 240_000);
});
