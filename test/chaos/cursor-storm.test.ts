import { cursorStorm } from '../support/scenarios/cursor-storm';
import { recordReport } from './results';

describe('chaos: a storm of cursor replays and walks against the ceilings on points in time', () => {
  it('keeps open contexts under the ceiling throughout, and other callers answered 200', async () => {
    const report = await cursorStorm({
      videos: 60,
      limit: 20,
      replays: Number(process.env.CHAOS_CURSOR_REPLAYS ?? 10_000),
      callers: Number(process.env.CHAOS_CURSOR_CALLERS ?? 1_000),
      abandonEvery: 10,
      concurrency: 8,
      maxOpen: 100,
      maxPerCaller: 2,
    });
    recordReport('cursor storm', report);
    expect(report.violations).toEqual([]);
  }, 1_800_000);
});
