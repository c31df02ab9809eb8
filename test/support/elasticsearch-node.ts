import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { elasticsearchNodes } from '@app/shared/search/search.client';
import { servicesConfig } from '../../scripts/services/config.ts';
import { removeNode, serverLog, startNode, type EsNodeSpec } from '../../scripts/services/elasticsearch.ts';
import { esOwner, type ElasticsearchInstall } from '../../scripts/services/elasticsearch-install.ts';
import { logTail, type ServerProcess } from '../../scripts/services/processes.ts';
import { install } from '../../scripts/services/services.ts';
import { freePort, ROOT } from './processes';

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

let installed: Promise<ElasticsearchInstall> | undefined;

/**
 * The distribution `services:up` unpacks and the Java it runs on (scripts/services holds the
 * version and the Java rule), or `ES_HOME` and `ES_JAVA_HOME` when both are set. Looked up once:
 * the nodes of a cluster are created side by side.
 */
function installation(): Promise<ElasticsearchInstall> {
  if (process.env.ES_HOME && process.env.ES_JAVA_HOME) {
    return Promise.resolve({ home: process.env.ES_HOME, javaHome: process.env.ES_JAVA_HOME });
  }
  installed ??= install(servicesConfig(ROOT));
  return installed;
}

/** What makes one node of a cluster (or a single node) its own. */
type NodeSpec = Pick<EsNodeSpec, 'clusterName' | 'nodeName' | 'heap' | 'httpPort' | 'clusterLines'> & {
  transportPort: number;
};

/**
 * A node of the test's own, not started: in a new directory, started and stopped as `services:up`
 * starts its nodes (scripts/services/elasticsearch.ts), run by the same unprivileged user under root.
 */
async function createNode({ transportPort, ...fields }: NodeSpec): Promise<ElasticsearchNode> {
  const config = servicesConfig(ROOT);
  const dir = mkdtempSync(join(tmpdir(), 'videos-es-'));
  const spec: EsNodeSpec = {
    ...fields,
    clusterLines: (bootstrapped) => [
      `transport.port: ${transportPort}`,
      ...fields.clusterLines(bootstrapped),
    ],
    install: await installation(),
    owner: esOwner(config),
    dir,
    logsDir: join(dir, 'logs'),
    launcherLog: join(dir, 'launcher.log'),
    host: '127.0.0.1',
  };
  const url = `http://127.0.0.1:${spec.httpPort}`;
  let server: ServerProcess | undefined;
  const node: ElasticsearchNode = {
    url,
    name: spec.nodeName,
    output: () => [logTail(spec.launcherLog), logTail(serverLog(spec))].join('\n').slice(-4_000),
    async start() {
      if (server && !server.exited()) return;
      server = await startNode(spec, { timeoutS: 180 });
    },
    stop: async () => server?.stop('SIGTERM', 30_000),
    kill: async () => server?.stop('SIGKILL', 0),
    async destroy() {
      await node.stop();
      removeNode(spec);
    },
  };
  return node;
}

/**
 * A real single-node Elasticsearch of the test's own (as `startOwnRedis` gives a Redis), on free
 * loopback ports with its own data, so stopping it touches nothing else. Startup takes 20–60 s.
 */
export async function startElasticsearchNode({ heap = '256m' } = {}): Promise<ElasticsearchNode> {
  const node = await createNode({
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
  const nodes = await Promise.all(
    ports.map((port, i) =>
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
    ),
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
