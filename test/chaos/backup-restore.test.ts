import { backupRestore } from '../support/scenarios/backup-restore';
import { recordReport } from './results';

describe('chaos: MySQL restored from an earlier dump', () => {
  it('one reconcile brings back no purged video and makes search match MySQL', async () => {
    const report = await backupRestore({ videos: 400, purged: 60, restored: 60, trashed: 60 });
    recordReport('MySQL restored from an earlier backup', report);
    expect(report.violations).toEqual([]);
  }, 900_000);
});
