import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { chownSync, cpSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { freePort, waitFor } from './processes';

export interface ElasticsearchNode {
  url: string;
  /** Stops the node (SIGTERM to its process group, SIGKILL after a grace period); its data stays. */
  stop(): Promise<void>;
  /** Starts it again on the same ports and data, and waits until it is at least yellow. */
  start(): Promise<void>;
  /** Stops it and removes its data. */
  destroy(): Promise<void>;
  /** The end of its log, for failure messages. */
  output(): string;
}

const ROOT = resolve(__dirname, '../..');

/**
 * The distribution `scripts/services.sh` unpacks and the Java it runs on (the script holds the
 * version and the Java rule), or `ES_HOME` and `ES_JAVA_HOME` when both are set.
 */
function installation(): { home: string; javaHome: string } {
  if (process.env.ES_HOME && process.env.ES_JAVA_HOME) {
    return { home: process.env.ES_HOME, javaHome: process.env.ES_JAVA_HOME };
  }
  const printed = execFileSync('bash', [resolve(ROOT, 'scripts/services.sh'), 'install'], {
    stdio: ['ignore', 'pipe', 'inherit'],
    timeout: 600_000,
  });
  const [home = '', javaHome = ''] = printed.toString().trim().split('\n');
  return { home, javaHome };
}

/**
 * Elasticsearch refuses to run as root: root runs it as the unprivileged user scripts/services.sh
 * creates (`videos-es`), which must own the node's directories; anyone else runs it as themselves.
 */
function runAs(): { command: string[]; owner?: { uid: number; gid: number } } {
  if (process.getuid?.() !== 0) return { command: [] };
  const user = process.env.ES_USER ?? 'videos-es';
  const uid = Number(execFileSync('id', ['-u', user]).toString());
  const gid = Number(execFileSync('id', ['-g', user]).toString());
  return {
    command: ['setpriv', `--reuid=${uid}`, `--regid=${gid}`, '--init-groups', '--'],
    owner: { uid, gid },
  };
}

function chownTree(path: string, owner: { uid: number; gid: number }): void {
  chownSync(path, owner.uid, owner.gid);
  for (const entry of readdirSync(path, { withFileTypes: true })) {
    const child = join(path, entry.name);
    if (entry.isDirectory()) chownTree(child, owner);
    else chownSync(child, owner.uid, owner.gid);
  }
}

/**
 * A real single-node Elasticsearch of the test's own (as `startOwnRedis` gives a Redis), on free
 * loopback ports with its own data, so stopping it touches nothing else. Startup takes 20–60 s.
 */
export async function startElasticsearchNode({ heap = '256m' } = {}): Promise<ElasticsearchNode> {
  const { home, javaHome } = installation();
  const { command, owner } = runAs();
  const dir = mkdtempSync(join(tmpdir(), 'videos-es-'));
  const httpPort = await freePort();
  const transportPort = await freePort();
  const config = join(dir, 'config');
  cpSync(join(home, 'config'), config, { recursive: true });
  for (const sub of ['data', 'logs', 'tmp']) mkdirSync(join(dir, sub));
  writeFileSync(
    join(config, 'elasticsearch.yml'),
    [
      'cluster.name: videos-test-node',
      'node.name: videos-test-node-1',
      `path.data: ${join(dir, 'data')}`,
      `path.logs: ${join(dir, 'logs')}`,
      'network.host: 127.0.0.1',
      `http.port: ${httpPort}`,
      `transport.port: ${transportPort}`,
      'discovery.type: single-node',
      'xpack.security.enabled: false',
      'cluster.routing.allocation.disk.threshold_enabled: false',
      'action.destructive_requires_name: false',
      '',
    ].join('\n'),
  );
  if (owner) chownTree(dir, owner);
  const url = `http://127.0.0.1:${httpPort}`;
  let child: ChildProcess | undefined;
  let output = '';

  const running = () => child !== undefined && child.exitCode === null && child.signalCode === null;

  const node: ElasticsearchNode = {
    url,
    output: () => output.slice(-4_000),
    async start() {
      if (running()) return;
      const env: NodeJS.ProcessEnv = {
        PATH: process.env.PATH,
        ES_JAVA_HOME: javaHome,
        ES_PATH_CONF: config,
        ES_TMPDIR: join(dir, 'tmp'),
        ES_JAVA_OPTS: `-Xms${heap} -Xmx${heap}`,
      };
      // Its own process group: the launcher JVM starts the server JVM, and stop() must reach both.
      const [program, ...args] = [...command, join(home, 'bin/elasticsearch')];
      child = spawn(program, args, {
        env,
        cwd: dir,
        detached: true,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      child.stdout!.on('data', (chunk: Buffer) => (output = (output + chunk.toString()).slice(-20_000)));
      child.stderr!.on('data', (chunk: Buffer) => (output = (output + chunk.toString()).slice(-20_000)));
      const started = child;
      try {
        await waitFor(
          `Elasticsearch on ${httpPort}`,
          async () => {
            if (started.exitCode !== null) throw new Error(`exited with ${started.exitCode}`);
            const response = await fetch(`${url}/_cluster/health?wait_for_status=yellow&timeout=1s`, {
              signal: AbortSignal.timeout(5_000),
            });
            return response.status === 200 ? true : undefined;
          },
          { timeoutMs: 180_000, intervalMs: 500 },
        );
      } catch (error) {
        await node.stop();
        throw new Error(`${String(error)}\n${node.output()}`, { cause: error });
      }
    },
    async stop() {
      if (!child || !running()) return;
      const stopping = child;
      const exited = new Promise((done) => stopping.once('exit', done));
      const group = -stopping.pid!;
      process.kill(group, 'SIGTERM');
      const timer = setTimeout(() => {
        try {
          process.kill(group, 'SIGKILL');
        } catch {
          // Already gone.
        }
      }, 30_000);
      await exited;
      clearTimeout(timer);
      // The launcher may exit a moment before the server JVM: wait until the port is free.
      await waitFor(
        `Elasticsearch on ${httpPort} to stop`,
        async () => {
          try {
            await fetch(url, { signal: AbortSignal.timeout(1_000) });
            return undefined;
          } catch {
            return true;
          }
        },
        { timeoutMs: 30_000 },
      );
    },
    async destroy() {
      await node.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
  await node.start();
  return node;
}
