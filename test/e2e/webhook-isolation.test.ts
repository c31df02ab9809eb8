import { webhookIsolation } from '../support/scenarios/webhook-isolation';

/**
 * Issue 29's dead receiver beside a healthy one in miniature; `npm run chaos` streams thousands of
 * events and holds the healthy receiver's p99 lag under 2 s. Here: every event reaches the healthy
 * receiver in order while the other never answers, and nothing meant for the dead one is lost.
 */
describe('one webhook receiver that never answers beside a healthy one', () => {
  it('delivers every event to the healthy receiver, in order, and keeps the dead one’s pending', async () => {
    const report = await webhookIsolation({ videos: 60, changesPerSecond: 20, settleTimeoutMs: 60_000 });
    expect(report.violations).toEqual([]);
  }, 240_000);
});
