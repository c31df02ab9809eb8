import { mysqlRestart } from '../support/scenarios/mysql-restart';
import { recordReport } from './results';

describe('chaos: MySQL restarted while deletes and searches run', () => {
  it('answers 503 while it is down, recovers fully after each return, and leaves no deletion half applied', async () => {
    const report = await mysqlRestart({
      videos: 600,
      deletes: 300,
      // A clean restart, then a crash: InnoDB must roll back whatever was in flight.
      restarts: ['SIGTERM', 'SIGKILL'],
      beforeMs: 10_000,
      downMs: Number(process.env.CHAOS_OUTAGE_SECONDS ?? 20) * 1_000,
      afterMs: 30_000,
      settleMs: 5_000,
      searchRate: 20,
    });
    recordReport('MySQL restart', report);
    expect(report.violations).toEqual([]);
  }, 900_000);
});
