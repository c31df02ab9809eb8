import { mysqlRestart } from '../support/scenarios/mysql-restart';

/** Scenario 4 of the reliability issue in miniature; `npm run chaos` runs it longer and larger. */
describe('MySQL restarted while deletes and searches run', () => {
  it('answers 503 while it is down, recovers fully, and leaves no deletion half applied', async () => {
    const report = await mysqlRestart({
      videos: 60,
      deletes: 30,
      restarts: ['SIGTERM'],
      beforeMs: 2_000,
      downMs: 5_000,
      afterMs: 8_000,
      settleMs: 3_000,
      searchRate: 10,
    });
    expect(report.violations).toEqual([]);
  }, 240_000);
});
