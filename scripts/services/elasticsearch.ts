import {
  chownSync,
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import {
  ensureInstallReachable,
  ensureWritable,
  grantTraverse,
  type ElasticsearchInstall,
  type EsOwner,
} from './elasticsearch-install.ts';
import { launch, waitReady, type ServerProcess } from './processes.ts';
import { fail } from './report.ts';
import { base, hostPort, isLocalHost, parseUrl } from './urls.ts';
import { httpGet, tcpOpen } from './wait.ts';

export const ES_PATTERN = /org\.elasticsearch/;

/** What every node of ours shares: security off, no disk watermarks, wildcard deletes for tests. */
const COMMON_SETTINGS = [
  'xpack.security.enabled: false',
  'cluster.routing.allocation.disk.threshold_enabled: false',
  'action.destructive_requires_name: false',
];

export interface EsEndpoint {
  base: string;
  scheme: string;
  host: string;
  port: number;
}

/**
 * ELASTICSEARCH_URL may list a cluster's nodes separated by commas, as the application takes it:
 * the first is node 1; the second, if any, is where elasticsearch-2 answers (else node 1's port + 1).
 */
export function esEndpoints(url: string): { first: EsEndpoint; second: EsEndpoint } {
  const [firstUrl = '', secondUrl] = url.split(',').map((part) => part.replaceAll(' ', ''));
  const endpoint = (raw: string): EsEndpoint => {
    const parsed = parseUrl(raw);
    return { base: base(raw), scheme: parsed.scheme, host: parsed.host, port: Number(parsed.port || 9200) };
  };
  const first = endpoint(firstUrl);
  const second = secondUrl
    ? endpoint(secondUrl)
    : { ...first, port: first.port + 1, base: `${first.scheme}://${hostPort(first.host, first.port + 1)}` };
  return { first, second };
}

/** At least yellow; `master_timeout`: a node still looking for its master answers at once. */
export async function esReady(url: string): Promise<boolean> {
  const answer = await httpGet(
    `${base(url)}/_cluster/health?wait_for_status=yellow&timeout=1s&master_timeout=1s`,
    5_000,
  );
  return answer?.status === 200;
}

/** The cluster a node answers for, even one not yellow yet; `undefined` when nothing speaks Elasticsearch there. */
export async function esClusterName(url: string): Promise<string | undefined> {
  const answer = await httpGet(`${base(url)}/_cluster/health?timeout=1s&master_timeout=1s`);
  try {
    return (JSON.parse(answer?.body ?? '') as { cluster_name?: string }).cluster_name;
  } catch {
    return undefined;
  }
}

/** What node 1 says of itself: its cluster, its transport address and its discovery type. */
export async function esNodeFacts(
  url: string,
): Promise<{ cluster: string; transport: string; discovery: string | undefined } | undefined> {
  const answer = await httpGet(
    `${base(url)}/_nodes/_local?filter_path=nodes.*.transport_address,nodes.*.settings.cluster.name,nodes.*.settings.discovery.type`,
    5_000,
  );
  try {
    const { nodes } = JSON.parse(answer?.body ?? '') as {
      nodes: Record<
        string,
        {
          transport_address?: string;
          settings?: { cluster?: { name?: string }; discovery?: { type?: string } };
        }
      >;
    };
    const node = Object.values(nodes)[0];
    const cluster = node?.settings?.cluster?.name;
    if (!cluster || !node.transport_address) return undefined;
    return { cluster, transport: node.transport_address, discovery: node.settings?.discovery?.type };
  } catch {
    return undefined;
  }
}

/** Only a plain-http node on a free local port can be started here. */
export async function checkCanStart(endpoint: EsEndpoint): Promise<void> {
  if (!isLocalHost(endpoint.host))
    fail(`Elasticsearch is not answering at ${endpoint.base}, which is not a local address`);
  if (endpoint.scheme !== 'http') fail(`can only start a plain-http Elasticsearch (${endpoint.base})`);
  if (await tcpOpen(endpoint.host, endpoint.port)) {
    fail(`port ${endpoint.host}:${endpoint.port} is taken by something that is not Elasticsearch`);
  }
}

export async function checkTransportFree(host: string, port: number, variable: string): Promise<void> {
  if (await tcpOpen(host, port))
    fail(`transport port ${hostPort(host, port)} is taken; set ${variable} to a free one`);
}

function chownTree(path: string, owner: EsOwner): void {
  chownSync(path, owner.uid, owner.gid);
  if (statSync(path).isDirectory())
    for (const entry of readdirSync(path)) chownTree(join(path, entry), owner);
}

/** One node: its directory (data, config, tmp), its logs, and what its elasticsearch.yml says. */
export interface EsNodeSpec {
  install: ElasticsearchInstall;
  owner: EsOwner | undefined;
  dir: string;
  logsDir: string;
  /** Where the launcher's own output goes. */
  launcherLog: string;
  clusterName: string;
  nodeName: string;
  host: string;
  httpPort: number;
  heap: string;
  extraJavaOpts?: string;
  /** Discovery, transport and role lines; `bootstrapped`: its data already belongs to a cluster. */
  clusterLines(bootstrapped: boolean): string[];
}

/** The server log of a node: Elasticsearch names it after the cluster. */
export function serverLog(spec: EsNodeSpec): string {
  return join(spec.logsDir, `${spec.clusterName}.log`);
}

/**
 * Writes the node's directories and its elasticsearch.yml (on every start: a cluster is
 * bootstrapped only from nodes whose data is new). The configuration lives with the data
 * (ES_PATH_CONF), so the cached install stays pristine and the node can write its keystore.
 */
export function prepareNode(spec: EsNodeSpec): void {
  const { dir, logsDir, owner } = spec;
  const config = join(dir, 'config');
  for (const sub of ['data', 'tmp', 'run']) mkdirSync(join(dir, sub), { recursive: true });
  mkdirSync(logsDir, { recursive: true });
  if (!existsSync(join(config, 'jvm.options')))
    cpSync(join(spec.install.home, 'config'), config, { recursive: true });
  const settings = [
    '# Generated by scripts/services on every start; edit scripts/services/elasticsearch.ts, not this file.',
    `cluster.name: ${spec.clusterName}`,
    `node.name: ${spec.nodeName}`,
    `path.data: ${join(dir, 'data')}`,
    `path.logs: ${logsDir}`,
    `network.host: ${spec.host}`,
    `http.port: ${spec.httpPort}`,
    ...spec.clusterLines(existsSync(join(dir, 'data', '_state'))),
    ...COMMON_SETTINGS,
    '',
  ];
  writeFileSync(join(config, 'elasticsearch.yml'), settings.join('\n'));
  if (owner) {
    chownTree(dir, owner);
    chownTree(logsDir, owner);
  }
  ensureInstallReachable(spec.install, owner);
  grantTraverse(owner, [dir, logsDir]);
  ensureWritable(owner, join(dir, 'data'));
}

/**
 * Starts a prepared node and waits until `ready` holds (by default: the node is at least yellow).
 * The launcher runs in the foreground of its own process group, so stopping the group stops the
 * launcher and the server JVM together.
 */
export async function startNode(
  spec: EsNodeSpec,
  {
    daemon = false,
    timeoutS = 180,
    ready = () => esReady(`http://${hostPort(spec.host, spec.httpPort)}`),
    what = `Elasticsearch did not reach yellow at http://${hostPort(spec.host, spec.httpPort)}`,
    pidFile,
  }: {
    daemon?: boolean;
    timeoutS?: number;
    ready?: () => Promise<boolean>;
    what?: string;
    pidFile?: string;
  } = {},
): Promise<ServerProcess> {
  prepareNode(spec);
  const server = launch({
    command: join(spec.install.home, 'bin/elasticsearch'),
    // A daemon's output is its server log already; quiet keeps the launcher's log to what goes wrong.
    args: daemon ? ['--quiet'] : [],
    runAs: spec.owner?.runAs,
    logFile: spec.launcherLog,
    cwd: spec.dir,
    env: {
      PATH: process.env.PATH,
      ES_JAVA_HOME: spec.install.javaHome,
      ES_PATH_CONF: join(spec.dir, 'config'),
      ES_TMPDIR: join(spec.dir, 'tmp'),
      ES_JAVA_OPTS: `-Xms${spec.heap} -Xmx${spec.heap} ${spec.extraJavaOpts ?? ''}`.trim(),
    },
    daemon,
    pidFile,
  });
  await waitReady(server, what, ready, {
    timeoutMs: timeoutS * 1000,
    logs: [spec.launcherLog, serverLog(spec)],
  });
  return server;
}

/** Removes a node's directory (its data included). */
export function removeNode(spec: Pick<EsNodeSpec, 'dir'>): void {
  rmSync(spec.dir, { recursive: true, force: true });
}
