import { cursorStorm } from '../support/scenarios/cursor-storm';

/** Issue 29's cursor storm in miniature; `npm run chaos` replays one cursor 10,000 times and walks 1,000 callers. */
describe('cursor storm: replays and walkers against small ceilings on points in time', () => {
  it('keeps open contexts under the ceiling, answers replays 200 on one point in time, other callers 200', async () => {
    const report = await cursorStorm({
      videos: 60,
      limit: 20,
      replays: 500,
      callers: 50,
      abandonEvery: 5,
      concurrency: 4,
      maxOpen: 10,
      maxPerCaller: 2,
    });
    expect(report.violations).toEqual([]);
  }, 300_000);
});
