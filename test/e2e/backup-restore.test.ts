import { backupRestore } from '../support/scenarios/backup-restore';

/** The backup-restore row of docs/reliability.md in miniature; `npm run chaos` runs it larger. */
describe('MySQL restored from an earlier dump while the API and the worker run', () => {
  it('one reconcile brings back no purged video and makes search match MySQL', async () => {
    const report = await backupRestore({ videos: 40, purged: 6, restored: 6, trashed: 6 });
    expect(report.violations).toEqual([]);
  }, 240_000);
});
