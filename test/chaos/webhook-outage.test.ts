import { bootSystem } from '../support/boot';
import { webhookOutage } from '../support/scenarios/webhook-outage';
import { recordReport } from './results';

const VIDEOS = Number(process.env.CHAOS_WEBHOOK_VIDEOS ?? 300);
const DOWN_SECONDS = Number(process.env.CHAOS_WEBHOOK_DOWN_SECONDS ?? 600);
const SLOW_SECONDS = Number(process.env.CHAOS_WEBHOOK_SLOW_SECONDS ?? 60);

describe('chaos: a webhook receiver down for minutes, then slow, while the worker is killed', () => {
  const boot = bootSystem({ redis: 'own', system: false });

  it(`delivers every event of ${VIDEOS} videos, signed and in order`, async () => {
    const report = await webhookOutage(boot.context, boot.redis, {
      videos: VIDEOS,
      downMs: DOWN_SECONDS * 1_000,
      slowMs: SLOW_SECONDS * 1_000,
      kills: 5,
      timeoutMs: 2_000,
      retryMaxMs: 30_000,
      settleTimeoutMs: 600_000,
    });
    recordReport('webhook receiver outage', report);
    expect(report.violations).toEqual([]);
  }, 1_800_000);
});
