import { startOwnRedis, type OwnRedis } from '../support/redis-server';
import { webhookOutage } from '../support/scenarios/webhook-outage';
import { openTestContext, type TestContext } from '../support/test-context';
import { recordReport } from './results';

const VIDEOS = Number(process.env.CHAOS_WEBHOOK_VIDEOS ?? 300);
const DOWN_SECONDS = Number(process.env.CHAOS_WEBHOOK_DOWN_SECONDS ?? 600);
const SLOW_SECONDS = Number(process.env.CHAOS_WEBHOOK_SLOW_SECONDS ?? 60);

describe('chaos: a webhook receiver down for minutes, then slow, while the worker is killed', () => {
  let context: TestContext;
  let redis: OwnRedis;

  beforeAll(async () => {
    context = await openTestContext();
    await context.reset();
    redis = await startOwnRedis();
  }, 120_000);

  afterAll(async () => {
    await redis?.stop();
    await context?.close();
  }, 60_000);

  it(`delivers every event of ${VIDEOS} videos, signed and in order`, async () => {
    const report = await webhookOutage(context, redis, {
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
