import { storesBlink } from '../support/scenarios/stores-blink';
import { recordReport } from './results';

describe('chaos: each store blinks under three APIs behind a Service', () => {
  it('keeps every API ready and in the pool, answers 2xx or a proper 503, recovers each route, loses no change', async () => {
    const report = await storesBlink({
      callers: 3,
      videosPerCaller: 100,
      blinkMs: Number(process.env.CHAOS_BLINK_SECONDS ?? 60) * 1_000,
      beforeMs: 10_000,
      afterMs: 20_000,
      recoveryMs: 10_000,
      changeRate: 15,
      searchRate: 10,
    });
    recordReport('a store blinks under three APIs', report);
    expect(report.violations).toEqual([]);
  }, 1_200_000);
});
