import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { initOwnMariadb, startOwnMariadb } from '../../scripts/services/mysql.ts';
import type { ServerProcess } from '../../scripts/services/processes.ts';
import { freePort } from './processes';

export interface OwnMysql {
  /** `mysql://root@127.0.0.1:<port>/<database>` */
  url: string;
  /** Stops the server: SIGTERM is a clean shutdown, SIGKILL a crash (InnoDB recovers at the next start). */
  stop(signal?: 'SIGTERM' | 'SIGKILL'): Promise<void>;
  /** Starts it again on the same port and data directory. */
  start(): Promise<void>;
  /** Stops it and removes its data. */
  destroy(): Promise<void>;
}

/**
 * A MariaDB server of the test's own (the Debian `mariadbd`, started by scripts/services/mysql.ts),
 * on a free loopback port with a fresh data directory, so restarting it touches nothing else. Root
 * logs in without a password, like the shared server's; the database itself is created by the
 * migrations.
 */
export async function startOwnMysql(database = 'videos_test'): Promise<OwnMysql> {
  const dir = mkdtempSync(join(tmpdir(), 'videos-mysql-'));
  await initOwnMariadb(dir);
  const port = await freePort();
  let server: ServerProcess | undefined;
  const own: OwnMysql = {
    url: `mysql://root@127.0.0.1:${port}/${database}`,
    async start() {
      if (server && !server.exited()) return;
      server = await startOwnMariadb({ dir, port });
    },
    async stop(signal = 'SIGTERM') {
      await server?.stop(signal, 60_000);
    },
    async destroy() {
      await own.stop('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    },
  };
  await own.start();
  return own;
}
