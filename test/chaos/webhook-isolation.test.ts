import { webhookIsolation } from '../support/scenarios/webhook-isolation';
import { recordReport } from './results';

const VIDEOS = Number(process.env.CHAOS_WEBHOOK_ISOLATION_VIDEOS ?? 1_500);

describe('chaos: one dead webhook receiver beside a healthy one', () => {
  it(`keeps the healthy receiver's p99 lag under 2 s over ${2 * VIDEOS} events`, async () => {
    const report = await webhookIsolation({
      videos: VIDEOS,
      changesPerSecond: 25,
      maxP99LagMs: 2_000,
      settleTimeoutMs: 120_000,
    });
    recordReport('one dead receiver beside a healthy one', report);
    expect(report.violations).toEqual([]);
  }, 1_200_000);
});
