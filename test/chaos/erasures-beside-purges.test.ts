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
      // From the erasures' first deletion: the last purge falls due about when a quiet machine has
      // run half of their 20,000 deletions (about 150 a second), so purges keep falling due among them.
      firstPurgeAfterMs: 5_000,
      purgeSpreadMs: 60_000,
      maxLagMs: 60_000,
      timeoutMs: 1_200_000,
    });
    recordReport('erasures beside purges', report);
    expect(report.violations).toEqual([]);
  }, 1_800_000);
});
