import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { createConnection } from 'mysql2/promise';
import { freePort, waitFor } from './processes';

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

/** Debian installs `mariadbd` in /usr/sbin, which a shell's PATH may leave out (a non-root one's does). */
const SERVER_ENV = { ...process.env, PATH: [process.env.PATH, '/usr/sbin', '/usr/local/sbin'].join(':') };

/**
 * A MariaDB server of the test's own (the Debian `mariadbd`), on a free loopback port with a fresh
 * data directory, so restarting it touches nothing else. Root logs in without a password, like the
 * shared server's; the database itself is created by the migrations.
 */
export async function startOwnMysql(database = 'videos_test'): Promise<OwnMysql> {
  const dir = mkdtempSync(join(tmpdir(), 'videos-mysql-'));
  const datadir = join(dir, 'data');
  await promisify(execFile)(
    'mariadb-install-db',
    [
      '--no-defaults',
      `--datadir=${datadir}`,
      '--auth-root-authentication-method=normal',
      '--skip-test-db',
      '--user=root',
    ],
    { env: SERVER_ENV },
  );
  const port = await freePort();
  let child: ChildProcess | undefined;
  const running = () => child !== undefined && child.exitCode === null && child.signalCode === null;
  const own: OwnMysql = {
    url: `mysql://root@127.0.0.1:${port}/${database}`,
    async start() {
      if (running()) return;
      const started = spawn(
        'mariadbd',
        [
          '--no-defaults',
          `--datadir=${datadir}`,
          `--port=${port}`,
          `--socket=${join(dir, 'mysqld.sock')}`,
          `--pid-file=${join(dir, 'mysqld.pid')}`,
          `--log-error=${join(dir, 'error.log')}`,
          '--bind-address=127.0.0.1',
          '--user=root',
          '--skip-log-bin',
          '--skip-name-resolve',
          '--innodb-buffer-pool-size=64M',
        ],
        { stdio: 'ignore', env: SERVER_ENV },
      );
      child = started;
      await waitFor(
        `MariaDB on ${port}`,
        async () => {
          if (started.exitCode !== null) throw new Error(`mariadbd exited with ${started.exitCode}`);
          const connection = await createConnection({ host: '127.0.0.1', port, user: 'root' });
          await connection.end();
          return true;
        },
        { timeoutMs: 60_000 },
      );
    },
    async stop(signal = 'SIGTERM') {
      if (!child || !running()) return;
      const stopping = child;
      const exited = new Promise((done) => stopping.once('exit', done));
      stopping.kill(signal);
      const timer = setTimeout(() => stopping.kill('SIGKILL'), 60_000);
      await exited;
      clearTimeout(timer);
    },
    async destroy() {
      await own.stop('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    },
  };
  await own.start();
  return own;
}
