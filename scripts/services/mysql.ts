import { execFile, execFileSync } from 'node:child_process';
import { chownSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { createConnection, type ConnectionOptions } from 'mysql2/promise';
import { layout, type ServicesConfig } from './config.ts';
import { findCommand } from './prerequisites.ts';
import { launch, stopPidFile, waitReady, type ServerProcess } from './processes.ts';
import { fail, log, upLine } from './report.ts';
import { isLocalHost, parseUrl, redact } from './urls.ts';

export const MYSQL_PATTERN = /mariadbd|mysqld/;

export interface MysqlAddress {
  host: string;
  port: number;
  user: string;
  password: string;
  database: string;
}

export function mysqlAddress(url: string): MysqlAddress {
  const parsed = parseUrl(url);
  return {
    host: parsed.host,
    port: Number(parsed.port || 3306),
    user: parsed.user || 'root',
    password: parsed.password,
    database: parsed.path,
  };
}

function connectionOptions({ host, port, user, password }: MysqlAddress): ConnectionOptions {
  return { host, port, user, password, connectTimeout: 3_000 };
}

/** Access denied (1045, 1698) or host not allowed (1130): a server answered, then refused the login. */
const LOGIN_REFUSED = new Set([1045, 1130, 1698]);

/**
 * A MySQL server answers there, even one that refuses this user: starting another would not help,
 * and `mysqlUp` reports the login problem separately.
 */
export async function mysqlAnswers(address: MysqlAddress): Promise<boolean> {
  try {
    const connection = await createConnection(connectionOptions(address));
    await connection.end();
    return true;
  } catch (error) {
    return LOGIN_REFUSED.has((error as { errno?: number }).errno ?? 0);
  }
}

/** Debian installs the server in /usr/sbin, which a non-root PATH leaves out (findCommand looks there too). */
function mysqlServerBinary(): string | undefined {
  return findCommand('mariadbd') ?? findCommand('mysqld');
}

/** Pids of MariaDB/MySQL servers running on this machine, whoever started them. */
function runningServers(): number[] {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .filter((pid) => {
      try {
        return /^(mariadbd|mysqld)$/.test(readFileSync(`/proc/${pid}/comm`, 'utf8').trim());
      } catch {
        return false;
      }
    })
    .map(Number);
}

async function startSystemServer(config: ServicesConfig, address: MysqlAddress): Promise<void> {
  const where = `${address.host}:${address.port}`;
  if (!isLocalHost(address.host)) {
    fail(
      `MySQL is not answering at ${where}, which is not a local address; start it there or point DATABASE_URL at a reachable server`,
    );
  }
  const bin = mysqlServerBinary();
  if (!bin) {
    fail(
      `MySQL is not answering at ${where} and no server is installed; install one (apt-get install mariadb-server) or point DATABASE_URL at a running server`,
    );
  }
  if (process.getuid?.() !== 0) fail(`MySQL is not answering at ${where}; starting ${bin} needs root`);
  // A second server on the system's data directory would fail on its locks: say so plainly.
  const running = runningServers();
  if (running.length > 0) {
    fail(
      `a MySQL/MariaDB server is already running (pid ${running.join(',')}) but not answering on ${where}; fix DATABASE_URL or that server`,
    );
  }
  const paths = layout(config);
  const logFile = join(paths.logs, 'mysql.log');
  const mysqlUser = {
    uid: Number(execFileSync('id', ['-u', 'mysql'])),
    gid: Number(execFileSync('id', ['-g', 'mysql'])),
  };
  // /run is a tmpfs: after a reboot the socket directory is gone.
  mkdirSync('/run/mysqld', { recursive: true });
  chownSync('/run/mysqld', mysqlUser.uid, mysqlUser.gid);
  mkdirSync(paths.logs, { recursive: true });
  if (!existsSync(logFile)) writeFileSync(logFile, '');
  chownSync(logFile, mysqlUser.uid, mysqlUser.gid);
  const bind = address.host === 'localhost' ? '127.0.0.1' : address.host;
  log(`starting ${bin} on ${bind}:${address.port}`);
  const server = launch({
    command: bin,
    args: [`--port=${address.port}`, `--bind-address=${bind}`, `--log-error=${logFile}`],
    logFile,
    daemon: true,
    pidFile: paths.mysqlPid,
  });
  await waitReady(server, `MySQL did not come up on ${where}`, () => mysqlAnswers(address), {
    timeoutMs: 60_000,
    logs: [logFile],
  });
}

/** Creates the schema the application connects to; this is also the check that the user can log in. */
async function ensureDatabase(address: MysqlAddress): Promise<void> {
  const sql = address.database
    ? `CREATE DATABASE IF NOT EXISTS \`${address.database.replaceAll('`', '``')}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`
    : 'SELECT 1';
  try {
    const connection = await createConnection(connectionOptions(address));
    try {
      await connection.query(sql);
    } finally {
      await connection.end();
    }
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    log(
      `warning: MySQL answers at ${address.host}:${address.port} but as '${address.user}' this failed: ${sql} -> ${message}`,
    );
    // Debian's fresh MariaDB lets root in through the local socket only; the default DATABASE_URL
    // logs in over TCP without a password, as a development machine's server usually allows.
    if (/access denied/i.test(message) && address.user === 'root') {
      log(
        `  to let root in over TCP without a password (a development machine only): sudo mariadb -e "ALTER USER root@localhost IDENTIFIED VIA unix_socket OR mysql_native_password USING PASSWORD('')"; or set DATABASE_URL to a user that can log in`,
      );
    }
  }
}

export async function mysqlUp(config: ServicesConfig): Promise<string> {
  const address = mysqlAddress(config.databaseUrl);
  let state: 'started' | 'reused' = 'reused';
  if (!(await mysqlAnswers(address))) {
    await startSystemServer(config, address);
    state = 'started';
  }
  await ensureDatabase(address);
  return upLine('mysql', state, redact(config.databaseUrl));
}

export function mysqlDown(config: ServicesConfig): Promise<string> {
  const file = layout(config).mysqlPid;
  if (!existsSync(file)) return Promise.resolve('mysql: left running (not started by services:up)');
  return stopPidFile('mysql', file, MYSQL_PATTERN, 120);
}

/** A MariaDB server with a data directory of its own (a test's), on a loopback port. */
export interface OwnMariadbOptions {
  dir: string;
  port: number;
  daemon?: boolean;
}

/** Creates the data directory of an own server; root then logs in without a password. */
export async function initOwnMariadb(dir: string): Promise<void> {
  await promisify(execFile)(
    'mariadb-install-db',
    [
      '--no-defaults',
      `--datadir=${join(dir, 'data')}`,
      '--auth-root-authentication-method=normal',
      '--skip-test-db',
      '--user=root',
    ],
    { env: { ...process.env, PATH: `${process.env.PATH ?? ''}:/usr/bin:/usr/sbin:/usr/local/sbin` } },
  );
}

/** Starts an own server (its data directory made by `initOwnMariadb`) and waits until it answers. */
export async function startOwnMariadb({
  dir,
  port,
  daemon = false,
}: OwnMariadbOptions): Promise<ServerProcess> {
  const bin = mysqlServerBinary() ?? fail('mariadbd is not installed (apt-get install mariadb-server)');
  const logFile = join(dir, 'error.log');
  const server = launch({
    command: bin,
    args: [
      '--no-defaults',
      `--datadir=${join(dir, 'data')}`,
      `--port=${port}`,
      `--socket=${join(dir, 'mysqld.sock')}`,
      `--pid-file=${join(dir, 'mysqld.pid')}`,
      `--log-error=${logFile}`,
      '--bind-address=127.0.0.1',
      '--user=root',
      '--skip-log-bin',
      '--skip-name-resolve',
      '--innodb-buffer-pool-size=64M',
    ],
    logFile,
    daemon,
  });
  const address = { host: '127.0.0.1', port, user: 'root', password: '', database: '' };
  await waitReady(server, `MariaDB did not come up on 127.0.0.1:${port}`, () => mysqlAnswers(address), {
    timeoutMs: 60_000,
    logs: [logFile],
  });
  return server;
}
