import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import {
  chownSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { elasticsearchNodes } from '@app/shared/search/search.client';
import { freePort, waitFor } from './processes';

export interface ElasticsearchNode {
  url: string;
  /** Its `node.name`, as `_cat/shards` and `_cat/nodes` show it. */
  name: string;
  /** Stops the node (SIGTERM to its process group, SIGKILL after a grace period); its data stays. */
  stop(): Promise<void>;
  /** SIGKILL to its process group at once, as a crash or a lost machine would; its data stays. */
  kill(): Promise<void>;
  /** Starts it again on the same ports and data, and waits until it is at least yellow. */
  start(): Promise<void>;
  /** Stops it and removes its data. */
  destroy(): Promise<void>;
  /** The end of its log, for failure messages. */
  output(): string;
}

/** Nodes of one cluster of the test's own. */
export interface ElasticsearchCluster {
  nodes: ElasticsearchNode[];
  /** Every node's URL, separated by commas: an ELASTICSEARCH_URL for a client that fails over. */
  url: string;
  /** Stops every node and removes its data. */
  destroy(): Promise<void>;
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

/** What makes one node of a cluster (or a single node) its own. */
interface NodeSpec {
  clusterName: string;
  nodeName: string;
  heap: string;
  httpPort: number;
  transportPort: number;
  /** Discovery and role lines; `bootstrapped` says whether its data already belongs to a cluster. */
  clusterLines(bootstrapped: boolean): string[];
}

/** Creates a node's directories and returns it, not started. */
function createNode(spec: NodeSpec): ElasticsearchNode {
  const { home, javaHome } = installation();
  const { command, owner } = runAs();
  const dir = mkdtempSync(join(tmpdir(), 'videos-es-'));
  const { httpPort } = spec;
  const config = join(dir, 'config');
  cpSync(join(home, 'config'), config, { recursive: true });
  for (const sub of ['data', 'logs', 'tmp']) mkdirSync(join(dir, sub));
  if (owner) chownTree(dir, owner);
  // Written at every start: a cluster is bootstrapped only from nodes whose data is new.
  const writeConfig = () => {
    const file = join(config, 'elasticsearch.yml');
    writeFileSync(
      file,
      [
        `cluster.name: ${spec.clusterName}`,
        `node.name: ${spec.nodeName}`,
        `path.data: ${join(dir, 'data')}`,
        `path.logs: ${join(dir, 'logs')}`,
        'network.host: 127.0.0.1',
        `http.port: ${httpPort}`,
        `transport.port: ${spec.transportPort}`,
        ...spec.clusterLines(existsSync(join(dir, 'data', '_state'))),
        'xpack.security.enabled: false',
        'cluster.routing.allocation.disk.threshold_enabled: false',
        'action.destructive_requires_name: false',
        '',
      ].join('\n'),
    );
    if (owner) chownSync(file, owner.uid, owner.gid);
  };
  const url = `http://127.0.0.1:${httpPort}`;
  let child: ChildProcess | undefined;
  let output = '';

  const running = () => child !== undefined && child.exitCode === null && child.signalCode === null;

  /** Signals the process group (the launcher JVM and the server JVM it starts) and waits until the port is free. */
  const end = async (signal: NodeJS.Signals, killAfterMs: number) => {
    if (!child || !running()) return;
    const stopping = child;
    const exited = new Promise((done) => stopping.once('exit', done));
    const group = -stopping.pid!;
    process.kill(group, signal);
    const timer = setTimeout(() => {
      try {
        process.kill(group, 'SIGKILL');
      } catch {
        // Already gone.
      }
    }, killAfterMs);
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
  };

  const node: ElasticsearchNode = {
    url,
    name: spec.nodeName,
    output: () => output.slice(-4_000),
    async start() {
      if (running()) return;
      writeConfig();
      const env: NodeJS.ProcessEnv = {
        PATH: process.env.PATH,
        ES_JAVA_HOME: javaHome,
        ES_PATH_CONF: config,
        ES_TMPDIR: join(dir, 'tmp'),
        ES_JAVA_OPTS: `-Xms${spec.heap} -Xmx${spec.heap}`,
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
            // master_timeout: a node still looking for its cluster's master answers at once.
            const response = await fetch(
              `${url}/_cluster/health?wait_for_status=yellow&timeout=1s&master_timeout=1s`,
              { signal: AbortSignal.timeout(5_000) },
            );
            return response.status === 200 ? true : undefined;
          },
          { timeoutMs: 180_000, intervalMs: 500 },
        );
      } catch (error) {
        await node.stop();
        throw new Error(`${String(error)}\n${node.output()}`, { cause: error });
      }
    },
    stop: () => end('SIGTERM', 30_000),
    kill: () => end('SIGKILL', 0),
    async destroy() {
      await node.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
  return node;
}

/**
 * A real single-node Elasticsearch of the test's own (as `startOwnRedis` gives a Redis), on free
 * loopback ports with its own data, so stopping it touches nothing else. Startup takes 20–60 s.
 */
export async function startElasticsearchNode({ heap = '256m' } = {}): Promise<ElasticsearchNode> {
  const node = createNode({
    clusterName: 'videos-test-node',
    nodeName: 'videos-test-node-1',
    heap,
    httpPort: await freePort(),
    transportPort: await freePort(),
    clusterLines: () => ['discovery.type: single-node'],
  });
  await node.start();
  return node;
}

/**
 * A cluster of `size` real nodes of the test's own, on free loopback ports; green when it returns.
 * Node 1 is the only master-eligible node and the others hold data only: with two nodes
 * Elasticsearch lets only one of them vote anyway (voting configurations are kept odd), so which
 * node the cluster survives losing is decided here, not by an election: any node but the first.
 * Every node finds the first by its transport port alone, and the cluster's name is new, so
 * nothing joins another cluster on this machine. The nodes start side by side (about 35 s for two
 * on two cores).
 */
export async function startElasticsearchCluster(
  size: number,
  { heap = '256m' } = {},
): Promise<ElasticsearchCluster> {
  const clusterName = `videos-test-cluster-${randomUUID().slice(0, 8)}`;
  const ports = [];
  for (let i = 0; i < size; i += 1) ports.push({ http: await freePort(), transport: await freePort() });
  const seed = `discovery.seed_hosts: ["127.0.0.1:${ports[0]!.transport}"]`;
  const nodes = ports.map((port, i) =>
    createNode({
      clusterName,
      nodeName: `${clusterName}-${i + 1}`,
      heap,
      httpPort: port.http,
      transportPort: port.transport,
      clusterLines:
        i === 0
          ? // Bootstrapping names the first master once; a node already in the cluster must not bootstrap again.
            (bootstrapped) => [
              seed,
              ...(bootstrapped ? [] : [`cluster.initial_master_nodes: ["${clusterName}-1"]`]),
            ]
          : () => [seed, 'node.roles: [data]'],
    }),
  );
  const cluster: ElasticsearchCluster = {
    nodes,
    url: nodes.map((node) => node.url).join(','),
    async destroy() {
      await Promise.all(nodes.map((node) => node.destroy()));
    },
  };
  try {
    await Promise.all(nodes.map((node) => node.start()));
    // Elasticsearch answers 408 when the wait times out: clusterRead throws with its body.
    await clusterRead(
      nodes[0]!.url,
      `/_cluster/health?wait_for_nodes=${size}&wait_for_status=green&timeout=60s`,
    );
  } catch (error) {
    await cluster.destroy();
    throw error;
  }
  return cluster;
}

/**
 * An administrative read (`_cluster/health`, `_cat/shards`, `_settings`…) of a test's own node or
 * the local one, for assertions about the cluster itself. The product reaches Elasticsearch only
 * through the index's owners (IndexAdmin, IndexWriter, IndexInventory, the API's search engine); a
 * test inspecting the cluster does not need a client for that.
 */
export async function clusterRead<T>(url: string, path: string, timeoutMs = 70_000): Promise<T> {
  const response = await fetch(`${elasticsearchNodes(url)[0]!.replace(/\/$/, '')}${path}`, {
    signal: AbortSignal.timeout(timeoutMs),
  });
  if (!response.ok) throw new Error(`GET ${path}: ${response.status} ${await response.text()}`);
  return (await response.json()) as T;
}
