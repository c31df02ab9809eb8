import { trashStorm } from '../support/scenarios/trash-operations';
import { recordReport } from './results';

const VIDEOS = Number(process.env.CHAOS_TRASH_VIDEOS ?? 100_000);
/** Waiting for every purge of 100,000 videos takes many minutes on a small machine: off unless asked. */
const WAIT_FOR_PURGES = process.env.CHAOS_TRASH_PURGES === 'true';

describe('chaos: a trash of 100,000 videos emptied while the worker is killed', () => {
  it(`empties ${VIDEOS} videos once, with exact progress, each deletion started once`, async () => {
    const report = await trashStorm({
      videos: VIDEOS,
      batchSize: 500,
      kills: 4,
      killEveryMs: 5_000,
      sweepIntervalMs: 5_000,
      flushRedis: true,
      waitForPurges: WAIT_FOR_PURGES,
      timeoutMs: 1_800_000,
    });
    recordReport('trash operation storm', report);
    expect(report.violations).toEqual([]);
  }, 3_600_000);
});
