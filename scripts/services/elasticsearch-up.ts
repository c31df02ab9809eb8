import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { layout, type ServicesConfig } from './config.ts';
import {
  checkCanStart,
  checkTransportFree,
  ES_PATTERN,
  esClusterName,
  esEndpoints,
  esNodeFacts,
  esReady,
  startNode,
  type EsNodeSpec,
} from './elasticsearch.ts';
import { ensureElasticsearchInstalled, esOwner } from './elasticsearch-install.ts';
import { checkSameUrl, livePid, stopPidFile, waitReady, writePidFile } from './processes.ts';
import { fail, log, upLine } from './report.ts';
import { hostPort } from './urls.ts';

/** `up`'s nodes: node 1 (`elasticsearch`) and the data-only node that joins it (`elasticsearch-2`). */
function nodePaths(config: ServicesConfig, second: boolean) {
  const name = second ? 'elasticsearch-2' : 'elasticsearch';
  const dir = join(config.servicesDir, name);
  const logs = layout(config).logs;
  return {
    dir,
    // In the node's run/ directory, where older versions of this tool had Elasticsearch write it.
    pidFile: join(dir, 'run', 'elasticsearch.pid'),
    urlFile: join(layout(config).pids, `${name}.url`),
    logsDir: join(logs, name),
    launcherLog: join(logs, `${name}-launcher.log`),
  };
}

async function spec(
  config: ServicesConfig,
  second: boolean,
  fields: Pick<EsNodeSpec, 'clusterName' | 'nodeName' | 'host' | 'httpPort' | 'clusterLines'>,
): Promise<EsNodeSpec> {
  const install = await ensureElasticsearchInstalled(config);
  const paths = nodePaths(config, second);
  return {
    ...fields,
    install,
    owner: esOwner(config),
    dir: paths.dir,
    logsDir: paths.logsDir,
    launcherLog: paths.launcherLog,
    heap: config.esHeap,
    extraJavaOpts: config.esExtraJavaOpts,
  };
}

/**
 * Node 1. A single node (the default) uses single-node discovery. Able to form a cluster
 * (`cluster`: ES_NODES=2, or elasticsearch-2 named), it listens for nodes on a fixed transport port
 * and, on data that has never belonged to a cluster, bootstraps one with itself as the master.
 */
export async function elasticsearchUp(config: ServicesConfig, cluster: boolean): Promise<string> {
  const { first } = esEndpoints(config.elasticsearchUrl);
  const paths = nodePaths(config, false);
  const timeoutMs = config.esStartTimeoutS * 1000;
  const waitYellow = () =>
    waitReady(
      undefined,
      `Elasticsearch did not reach yellow at ${first.base} within ${config.esStartTimeoutS}s`,
      () => esReady(first.base),
      {
        timeoutMs,
        logs: [paths.launcherLog, join(paths.logsDir, 'videos-local.log')],
      },
    );
  if (await esReady(first.base)) return upLine('elasticsearch', 'reused', first.base);
  if (livePid(paths.pidFile, ES_PATTERN) !== undefined) {
    // Ours and still booting (a concurrent `up`, say): wait, never start a second one.
    checkSameUrl(paths.urlFile, first.base, 'elasticsearch');
    await waitYellow();
    return upLine('elasticsearch', 'reused', first.base);
  }
  if ((await esClusterName(first.base)) !== undefined) {
    await waitYellow(); // someone else's node, not yellow yet
    return upLine('elasticsearch', 'reused', first.base);
  }
  await checkCanStart(first);
  if (cluster) await checkTransportFree(first.host, config.esTransportPort, 'ES_TRANSPORT_PORT');
  const seed = hostPort(first.host, config.esTransportPort);
  const node = await spec(config, false, {
    clusterName: 'videos-local',
    nodeName: 'videos-local-1',
    host: first.host,
    httpPort: first.port,
    // Naming the first master again on data already in a cluster could bootstrap a second cluster.
    clusterLines: (bootstrapped) =>
      cluster
        ? [
            `transport.port: ${config.esTransportPort}`,
            `discovery.seed_hosts: ["${seed}"]`,
            ...(bootstrapped ? [] : ['cluster.initial_master_nodes: ["videos-local-1"]']),
          ]
        : ['discovery.type: single-node'],
  });
  writePidFile(paths.urlFile, first.base);
  log(
    `starting Elasticsearch ${config.esVersion} on ${first.host}:${first.port} (heap ${config.esHeap}${cluster ? ', able to form a cluster' : ''})`,
  );
  await startNode(node, { daemon: true, timeoutS: config.esStartTimeoutS, pidFile: paths.pidFile });
  return upLine('elasticsearch', 'started', first.base);
}

/**
 * The second node joins node 1's cluster, whose name and transport address it reads from node 1
 * itself (so it also joins a node not started here), and holds data only: with two nodes
 * Elasticsearch lets only one vote anyway, so stopping elasticsearch-2 is always safe for the cluster.
 */
export async function elasticsearch2Up(config: ServicesConfig): Promise<string> {
  const { first, second } = esEndpoints(config.elasticsearchUrl);
  if (!(await esReady(first.base)))
    fail(`elasticsearch-2 joins the node at ${first.base}, which is not running`);
  const facts =
    (await esNodeFacts(first.base)) ??
    fail(`cannot read node 1's cluster and transport address from ${first.base}/_nodes/_local`);
  const paths = nodePaths(config, true);
  const joined = async () => (await esClusterName(second.base)) === facts.cluster;
  const waitJoined = (server?: Parameters<typeof waitReady>[0]) =>
    waitReady(
      server,
      `Elasticsearch did not join the cluster ${facts.cluster} at ${second.base} within ${config.esStartTimeoutS}s`,
      joined,
      {
        timeoutMs: config.esStartTimeoutS * 1000,
        logs: [paths.launcherLog, join(paths.logsDir, `${facts.cluster}.log`)],
      },
    );
  if (await joined()) return upLine('elasticsearch-2', 'reused', second.base);
  if (livePid(paths.pidFile, ES_PATTERN) !== undefined) {
    checkSameUrl(paths.urlFile, second.base, 'elasticsearch-2');
    await waitJoined(); // ours and still booting
    return upLine('elasticsearch-2', 'reused', second.base);
  }
  if ((await esClusterName(second.base)) !== undefined) {
    fail(
      `the node at ${second.base} belongs to another cluster than the one at ${first.base} (${facts.cluster})`,
    );
  }
  // A single node refuses every node that would join it; it would have to be restarted, which is
  // never done here to a node that others may be using.
  if (facts.discovery === 'single-node') {
    fail(
      `the node at ${first.base} runs as a single node (discovery.type: single-node), which no other node can join; restart it able to form a cluster: bash scripts/services.sh down elasticsearch && ES_NODES=2 bash scripts/services.sh up`,
    );
  }
  await checkCanStart(second);
  await checkTransportFree(second.host, config.es2TransportPort, 'ES2_TRANSPORT_PORT');
  const node = await spec(config, true, {
    clusterName: facts.cluster,
    nodeName: 'videos-local-2',
    host: second.host,
    httpPort: second.port,
    clusterLines: () => [
      'node.roles: [data]',
      `transport.port: ${config.es2TransportPort}`,
      `discovery.seed_hosts: ["${facts.transport}"]`,
    ],
  });
  writePidFile(paths.urlFile, second.base);
  log(
    `starting a second Elasticsearch node on ${second.host}:${second.port} (heap ${config.esHeap}), joining ${facts.cluster} at ${facts.transport}`,
  );
  await startNode(node, {
    daemon: true,
    pidFile: paths.pidFile,
    timeoutS: config.esStartTimeoutS,
    ready: joined,
    what: `Elasticsearch did not join the cluster ${facts.cluster} at ${second.base}`,
  });
  return upLine('elasticsearch-2', 'started', second.base);
}

export async function elasticsearchDown(config: ServicesConfig, second: boolean): Promise<string> {
  const paths = nodePaths(config, second);
  const line = await stopPidFile(second ? 'elasticsearch-2' : 'elasticsearch', paths.pidFile, ES_PATTERN, 60);
  rmSync(paths.urlFile, { force: true });
  return line;
}

/** The pid of a node this tool started, when it runs. */
export function ownNodePid(config: ServicesConfig, second: boolean): number | undefined {
  return livePid(nodePaths(config, second).pidFile, ES_PATTERN);
}

/** Up only as a member of node 1's cluster: a node that has not found its master does not count. */
export async function elasticsearch2Joined(config: ServicesConfig): Promise<boolean> {
  const { first, second } = esEndpoints(config.elasticsearchUrl);
  const facts = await esNodeFacts(first.base);
  return facts !== undefined && (await esClusterName(second.base)) === facts.cluster;
}
