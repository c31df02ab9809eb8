import { erasuresBesidePurges } from '../support/scenarios/erasures-beside-purges';
import { recordReport } from './results';

const VIDEOS = Number(process.env.CHAOS_ERASURES_BESIDE_PURGES_VIDEOS ?? 5_000);
const PURGES = Number(process.env.CHAOS_ERASURES_BESIDE_PURGES_PURGES ?? 1_000);

describe('chaos: four large erasures while purges fall due', () => {
  it(`purges each of ${PURGES} videos within 60 s of its date beside 4 erasures of ${VIDEOS}`, async () => {
    const report = await erasuresBesidePurges({
      erasures: 4,
      videosPerErasure: VIDEOS,
      purges: PURGES,
      firstPurgeAfterMs: 15_000,
      purgeSpreadMs: 120_000,
      maxLagMs: 60_000,
      timeoutMs: 1_200_000,
    });
    recordReport('erasures beside purges', report);
    expect(report.violations).toEqual([]);
  }, 1_800_000);
});
