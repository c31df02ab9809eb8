import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { waitUntilGone } from '../seed';
import { call } from '../system';
import { drillTitle, indexDrift, reconcile, runDrill } from './outage-drill';
import type { ScenarioReport } from './report';

const run = promisify(execFile);

export interface BackupRestoreOptions {
  videos: number;
  /** After the dump: purged, soft-deleted then restored, soft-deleted (and left in the trash). */
  purged: number;
  restored: number;
  trashed: number;
}

/**
 * MySQL restored from a dump taken earlier (docs/contract.md §10.5, docs/reliability.md): after the
 * dump, videos are purged, deleted and restored, or put in the trash; then the dump is loaded back
 * over the live database while the API and the worker run, and the reconciler runs once (the CLI).
 * Expected: no purged video is back (no row, document, object or search hit, and its receipt still
 * answers), and search matches MySQL exactly: every document at its row's version, every active
 * row found by its title, nothing else shown.
 */
export async function backupRestore(options: BackupRestoreOptions): Promise<ScenarioReport> {
  return runDrill({}, options.videos, async (drill) => {
    const { context, system, ids, bearer } = drill;
    const database = new URL(context.config.DATABASE_URL);
    const connection = [
      `--host=${database.hostname}`,
      `--port=${database.port || 3306}`,
      `--user=${decodeURIComponent(database.username || 'root')}`,
      ...(database.password ? [`--password=${decodeURIComponent(database.password)}`] : []),
    ];
    const name = database.pathname.slice(1);
    const folder = await mkdtemp(join(tmpdir(), 'backup-'));
    const dump = join(folder, 'dump.sql');
    try {
      const { stdout } = await run('mysqldump', [...connection, '--single-transaction', name], {
        maxBuffer: 512 * 2 ** 20,
      });
      await writeFile(dump, stdout);

      const api = (method: string, path: string) => call(method, `${system.api}${path}`, bearer);
      const [purged, restored, trashed] = [
        ids.slice(0, options.purged),
        ids.slice(options.purged, options.purged + options.restored),
        ids.slice(options.purged + options.restored, options.purged + options.restored + options.trashed),
      ];
      const refused: string[] = [];
      const expect200 = async (method: string, path: string) => {
        const answer = await api(method, path);
        if (answer.status !== 200) refused.push(`${method} ${path} → ${answer.status}`);
      };
      for (const id of purged) await expect200('DELETE', `/api/videos/${id}?permanent=true`);
      for (const id of restored) {
        await expect200('DELETE', `/api/videos/${id}`);
        await expect200('POST', `/api/videos/${id}/restore`);
      }
      for (const id of trashed) await expect200('DELETE', `/api/videos/${id}`);
      await waitUntilGone(context, purged, 60_000);

      // The restore: the dump loaded over the live database, as an operator recovering from a loss would.
      await run('sh', [
        '-c',
        `mysql ${connection.map((part) => `'${part}'`).join(' ')} '${name}' < '${dump}'`,
      ]);
      const driftAfterRestore = await indexDrift(context);
      const repair = await reconcile(drill);
      const drift = await indexDrift(context);

      const violations: string[] = [...refused];
      if (repair.failure) violations.push(repair.failure);
      if (drift.total > 0) violations.push(`index drift after one reconcile: ${JSON.stringify(drift)}`);
      const rows: { id: string; state: string }[] = await context.dataSource.query(
        'SELECT id, state FROM videos',
      );
      const state = new Map(rows.map((row) => [row.id, row.state]));
      const documents = new Set(await context.indexedIds());
      const keys = new Set((await context.allMediaKeys()).map((key) => key.split('/')[1]));
      for (const id of purged) {
        if (state.has(id)) violations.push(`purged ${id} has a row again (${state.get(id)})`);
        if (documents.has(id)) violations.push(`purged ${id} has an index document again`);
        if (keys.has(id)) violations.push(`purged ${id} has media again`);
        const receipt = await call<{ state: string }>(
          'GET',
          `${system.api}/api/videos/${id}/deletion`,
          bearer,
        );
        if (receipt.body.state !== 'deleted')
          violations.push(`purged ${id}: receipt ${receipt.status} ${receipt.body.state}`);
      }
      // Search matches MySQL: each video's own title finds it exactly when its row is active.
      let mismatches = 0;
      for (const [index, id] of ids.entries()) {
        const answer = await call<{ items: { id: string }[] }>(
          'GET',
          `${system.api}/api/videos/search?q=${encodeURIComponent(`"${drillTitle(index)}"`)}&limit=100`,
          bearer,
        );
        const shown = answer.body.items?.some((item) => item.id === id) ?? false;
        if (answer.status !== 200 || shown !== (state.get(id) === 'active')) {
          mismatches += 1;
          if (mismatches <= 5)
            violations.push(`${id} (${state.get(id) ?? 'no row'}): search ${answer.status}, shown ${shown}`);
        }
      }
      if (mismatches > 5) violations.push(`… ${mismatches} search mismatches in all`);

      const active = rows.filter((row) => row.state === 'active').length;
      return {
        load: `${options.videos} videos; after the dump: ${options.purged} purged, ${options.restored} deleted and restored, ${options.trashed} put in the trash`,
        faults: `MySQL restored from a mysqldump taken before those changes, under the running API and worker`,
        expected:
          'one reconcile: no purged video back (row, document, media, search), receipts answer, every document at its row\u2019s version, search shows exactly the active rows',
        observed:
          `after the restore: index drift ${JSON.stringify(driftAfterRestore)}; reconcile: ${repair.summary}; ` +
          `after it: ${rows.length} rows (${active} active), drift ${drift.total}, ${mismatches} search mismatches of ${ids.length}`,
        violations,
      };
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
  });
}
