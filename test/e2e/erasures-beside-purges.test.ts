import { erasuresBesidePurges } from '../support/scenarios/erasures-beside-purges';

/**
 * Issue 29's erasures beside purges in miniature; `npm run chaos` runs 4 × 5,000 beside 1,000
 * purges and holds each purge to 60 s. Here: the same flood, smaller, without a time goal.
 */
describe('large erasures beside purges falling due', () => {
  it('runs every due purge ahead of the erasures’ waiting deletions, and completes everything once', async () => {
    const report = await erasuresBesidePurges({
      erasures: 4,
      videosPerErasure: 500,
      purges: 60,
      firstPurgeAfterMs: 500,
      purgeSpreadMs: 2_500,
      timeoutMs: 180_000,
    });
    // What was seen, to read beside a failure.
    if (report.violations.length > 0) console.log(report.observed);
    expect(report.violations).toEqual([]);
  }, 300_000);
});
