import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Redis } from 'ioredis';
import { startRedisServer } from '../../scripts/services/redis.ts';
import type { ServerProcess } from '../../scripts/services/processes.ts';
import { freePort, waitFor } from './processes';

const run = promisify(execFile);

/** How long a primary may be silent before its replica takes over: short, so a test sees a failover in seconds. */
const NODE_TIMEOUT_MS = 1_000;

export interface ClusterNode {
  port: number;
  server: ServerProcess;
}

export interface OwnRedisCluster {
  /** REDIS_URL for it (with REDIS_CLUSTER=true): every primary's URL, separated by commas. */
  url: string;
  nodes: ClusterNode[];
  /** The port of the primary that holds `key`'s hash slot now. */
  primaryOf(key: string): Promise<number>;
  /**
   * SIGKILLs the primary that holds `key`'s slot, as a crash would, and waits until its replica
   * has taken the slot over and the cluster says it is whole again. Answers the killed port and
   * the new primary's.
   */
  killPrimaryOf(key: string): Promise<{ killed: number; promoted: number }>;
  /** Empties every primary (its replicas follow). */
  flushAll(): Promise<void>;
  /** The keys matching `pattern` on the node at `port` (SCAN): what that node itself holds. */
  keysOn(port: number, pattern: string): Promise<string[]>;
  stop(): Promise<void>;
}

/**
 * Runs `work` on a connection of its own to the node at `port`, closed after. A node that is gone
 * or silent fails it within seconds: one connection attempt, each command bounded.
 */
async function onNode<T>(port: number, work: (client: Redis) => Promise<T>): Promise<T> {
  const client = new Redis({
    port,
    host: '127.0.0.1',
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
    connectTimeout: 2_000,
    commandTimeout: 2_000,
  });
  try {
    await client.connect();
    return await work(client);
  } finally {
    client.disconnect();
  }
}

/** One cluster node's view of `CLUSTER SLOTS`: for each range, the port of its primary. */
function slotOwners(port: number): Promise<{ from: number; to: number; primary: number }[]> {
  return onNode(port, async (client) => {
    const ranges = (await client.call('CLUSTER', 'SLOTS')) as [number, number, [string, number]][];
    return ranges.map(([from, to, [, primary]]) => ({ from, to, primary }));
  });
}

/**
 * Whether the node at `port` is a replica holding its primary's whole dataset: linked, and its
 * first full sync done. A primary answers `true`. A replica promoted before then has nothing.
 */
function inSync(port: number): Promise<boolean> {
  return onNode(port, async (client) => {
    const info = await client.info('replication');
    if (!/role:slave/.test(info)) return true;
    return /master_link_status:up/.test(info) && /master_sync_in_progress:0/.test(info);
  });
}

function clusterState(port: number): Promise<string> {
  return onNode(port, async (client) => {
    const info = (await client.call('CLUSTER', 'INFO')) as string;
    return /cluster_state:(\w+)/.exec(info)?.[1] ?? 'unknown';
  });
}

/** The ranges of slots as the first live node that answers sees them. */
async function liveSlotOwners(ports: number[]): Promise<{ from: number; to: number; primary: number }[]> {
  for (const port of ports) {
    const owners = await slotOwners(port).catch(() => []);
    if (owners.length > 0) return owners;
  }
  return [];
}

/**
 * A Redis Cluster of the test's own: three primaries and a replica of each, `redis-server` in
 * cluster mode on free loopback ports, joined by `redis-cli --cluster create`, nothing persisted.
 */
export async function startOwnRedisCluster(): Promise<OwnRedisCluster> {
  const dir = mkdtempSync(join(tmpdir(), 'videos-redis-cluster-'));
  const nodes: ClusterNode[] = [];
  const stop = async () => {
    await Promise.all(nodes.map((node) => node.server.stop('SIGKILL', 0)));
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    // Ports this cluster has taken, so that no two of its nodes are handed the same one.
    const taken = new Set<number>();
    const takePort = async () => {
      let candidate = await freePort();
      while (taken.has(candidate)) candidate = await freePort();
      taken.add(candidate);
      return candidate;
    };
    const startNode = async (port: number, busPort: number) => {
      const nodeDir = join(dir, String(port));
      return startRedisServer({
        host: '127.0.0.1',
        port,
        user: '',
        password: '',
        dir: nodeDir,
        logFile: join(nodeDir, 'redis.log'),
        extraArgs: [
          '--cluster-enabled',
          'yes',
          // The bus port on a free port of its own too: port + 10000, the default, may be taken.
          '--cluster-port',
          String(busPort),
          '--cluster-config-file',
          'nodes.conf',
          '--cluster-node-timeout',
          String(NODE_TIMEOUT_MS),
          // A replica that lost touch with its primary for a moment may still take over.
          '--cluster-replica-validity-factor',
          '0',
        ],
      });
    };
    for (let n = 0; n < 6; n++) {
      // A port found free may be taken by another process before the node binds it: then the node
      // exits at once, and is started again on other ports.
      for (let attempt = 1; ; attempt++) {
        const nodePort = await takePort();
        try {
          nodes.push({ port: nodePort, server: await startNode(nodePort, await takePort()) });
          break;
        } catch (error) {
          if (attempt === 3) throw error;
        }
      }
    }
    const addresses = nodes.map((node) => `127.0.0.1:${node.port}`);
    // The first three become primaries, each of the others a replica of one of them.
    await run(
      'redis-cli',
      ['--cluster', 'create', ...addresses, '--cluster-replicas', '1', '--cluster-yes'],
      {
        timeout: 60_000,
      },
    );
    await waitFor(
      'every node of the new cluster to say it is whole',
      async () => {
        const states = await Promise.all(nodes.map((node) => clusterState(node.port).catch(() => 'down')));
        return states.every((state) => state === 'ok') ? true : undefined;
      },
      { timeoutMs: 30_000, intervalMs: 200 },
    );
    // A replica's first sync waits for more replicas (repl-diskless-sync-delay, 5 s): until it
    // ends, a failover would promote an empty node. The scenarios take a node of a cluster whose
    // replicas hold everything, as a cluster that has run for a while does.
    await waitFor(
      'every replica to finish its first sync with its primary',
      async () =>
        (await Promise.all(nodes.map((node) => inSync(node.port)))).every(Boolean) ? true : undefined,
      { timeoutMs: 30_000, intervalMs: 200 },
    );
  } catch (error) {
    await stop();
    throw error;
  }

  const alive = () => nodes.filter((node) => !node.server.exited());
  const alivePorts = () => alive().map((node) => node.port);
  const primaryOf = async (key: string) => {
    const slot = Number(await onNode(alivePorts()[0]!, (client) => client.call('CLUSTER', 'KEYSLOT', key)));
    const owner = (await liveSlotOwners(alivePorts())).find((r) => slot >= r.from && slot <= r.to);
    if (!owner) throw new Error(`no live node knows who holds slot ${slot}`);
    return owner.primary;
  };

  return {
    url: nodes
      .slice(0, 3)
      .map((node) => `redis://127.0.0.1:${node.port}`)
      .join(','),
    nodes,
    primaryOf,
    async killPrimaryOf(key) {
      const killed = await primaryOf(key);
      await nodes.find((node) => node.port === killed)!.server.stop('SIGKILL', 0);
      const promoted = await waitFor(
        `a replica to take over from the primary on ${killed}`,
        async () => {
          const states = await Promise.all(
            alive().map((node) => clusterState(node.port).catch(() => 'down')),
          );
          if (!states.every((state) => state === 'ok')) return undefined;
          const now = await primaryOf(key).catch(() => killed);
          return now === killed ? undefined : now;
        },
        { timeoutMs: 30_000, intervalMs: 200 },
      );
      return { killed, promoted };
    },
    async flushAll() {
      const primaries = new Set((await liveSlotOwners(alivePorts())).map((range) => range.primary));
      for (const port of primaries) await onNode(port, (client) => client.flushall());
    },
    keysOn(port, pattern) {
      return onNode(port, async (client) => {
        const keys: string[] = [];
        let cursor = '0';
        do {
          const [next, batch] = await client.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
          keys.push(...batch);
          cursor = next;
        } while (cursor !== '0');
        return keys;
      });
    },
    stop,
  };
}
