import { erasureStorm } from '../support/scenarios/erasure-storm';
import { recordReport } from './results';

const VIDEOS = Number(process.env.CHAOS_ERASURE_VIDEOS ?? 5_000);

describe('chaos: an author erasure while workers are killed and Redis is flushed', () => {
  it(`erases ${VIDEOS} videos once, with exact progress and no orphaned media`, async () => {
    const report = await erasureStorm({
      videos: VIDEOS,
      batchSize: 500,
      kills: 5,
      killEveryMs: 4_000,
      timeoutMs: 600_000,
    });
    recordReport('erasure storm', report);
    expect(report.violations).toEqual([]);
  }, 900_000);
});
