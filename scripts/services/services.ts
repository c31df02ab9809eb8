import { redisAddress, redisAnswers, redisDown, redisUp, REDIS_PATTERN } from './redis.ts';
import { layout, type ServicesConfig } from './config.ts';
import {
  elasticsearch2Joined,
  elasticsearch2Up,
  elasticsearchDown,
  elasticsearchUp,
  ownNodePid,
} from './elasticsearch-up.ts';
import { esClusterName, esEndpoints, esReady } from './elasticsearch.ts';
import { ensureElasticsearchInstalled, ensureInstallReachable, esOwner } from './elasticsearch-install.ts';
import { withLock } from './lock.ts';
import { mysqlAddress, mysqlAnswers, mysqlDown, mysqlUp, MYSQL_PATTERN } from './mysql.ts';
import { ensureInstalled, thisMachine, type Machine, type Need } from './prerequisites.ts';
import { livePid } from './processes.ts';
import { fail, statusLine } from './report.ts';
import { s3Answers, s3proxyDown, s3proxyUp, S3PROXY_PATTERN } from './s3proxy.ts';
import { base, isLocalHost, parseUrl, redact } from './urls.ts';

export const SERVICES = ['mysql', 'redis', 'elasticsearch', 'elasticsearch-2', 's3proxy'] as const;
export type Service = (typeof SERVICES)[number];

export interface Selection {
  services: Service[];
  /** Node 1 is started able to form a cluster only when a second node is wanted. */
  cluster: boolean;
}

/**
 * The named services (checked), or the defaults: all but elasticsearch-2, which belongs to them
 * with ES_NODES=2 or while one started here runs (so a plain `down` or `status` never forgets it).
 */
export function selectServices(names: string[], esNodes: 1 | 2, ownSecondNodeRuns: boolean): Selection {
  for (const name of names) {
    if (!(SERVICES as readonly string[]).includes(name))
      fail(`unknown service '${name}' (expected: ${SERVICES.join(' ')})`);
  }
  const services =
    names.length > 0
      ? (names as Service[])
      : SERVICES.filter((name) => name !== 'elasticsearch-2' || esNodes === 2 || ownSecondNodeRuns);
  return { services, cluster: esNodes === 2 || services.includes('elasticsearch-2') };
}

function selection(config: ServicesConfig, names: string[]): Selection {
  return selectServices(names, config.esNodes, ownNodePid(config, true) !== undefined);
}

/** What starting the chosen services would need installed: only for local ones that do not answer. */
export async function needs(config: ServicesConfig, services: Service[]): Promise<Need[]> {
  const wanted: Need[] = [];
  const has = (name: Service) => services.includes(name);
  const mysql = mysqlAddress(config.databaseUrl);
  if (has('mysql') && isLocalHost(mysql.host) && !(await mysqlAnswers(mysql))) wanted.push('mysql-server');
  const redis = redisAddress(config.redisUrl);
  if (has('redis') && isLocalHost(redis.host) && !(await redisAnswers(redis))) wanted.push('redis-server');
  const { first, second } = esEndpoints(config.elasticsearchUrl);
  const esDown = async (node: typeof first) =>
    isLocalHost(node.host) && (await esClusterName(node.base)) === undefined;
  if ((has('elasticsearch') || has('elasticsearch-2')) && (await esDown(first))) wanted.push('java');
  if (has('elasticsearch-2') && (await esDown(second))) wanted.push('java');
  const s3 = base(config.s3Endpoint);
  if (has('s3proxy') && isLocalHost(parseUrl(s3).host) && !(await s3Answers(s3))) wanted.push('java');
  return wanted;
}

/** Starts what does not answer and reuses what does; prints one line per service as it is done. */
export async function up(
  config: ServicesConfig,
  names: string[],
  print: (line: string) => void,
  machine: Machine = thisMachine(config.javaHome, layout(config).logs),
): Promise<void> {
  const { services, cluster } = selection(config, names);
  await withLock(config.servicesDir, async () => {
    // Everything missing is installed, or named, before anything starts.
    ensureInstalled(await needs(config, services), machine);
    if (services.includes('mysql')) print(await mysqlUp(config));
    if (services.includes('redis')) print(await redisUp(config));
    // elasticsearch-2 joins node 1, so naming it brings node 1 up (or reuses it) first.
    if (services.includes('elasticsearch') || services.includes('elasticsearch-2'))
      print(await elasticsearchUp(config, cluster));
    if (services.includes('elasticsearch-2')) print(await elasticsearch2Up(config));
    if (services.includes('s3proxy')) print(await s3proxyUp(config));
  });
}

/** Stops what this services directory started, in the reverse order; leaves everything else running. */
export async function down(
  config: ServicesConfig,
  names: string[],
  print: (line: string) => void,
): Promise<void> {
  const { services } = selection(config, names);
  await withLock(config.servicesDir, async () => {
    if (services.includes('s3proxy')) print(await s3proxyDown(config));
    if (services.includes('elasticsearch-2')) print(await elasticsearchDown(config, true));
    if (services.includes('elasticsearch')) print(await elasticsearchDown(config, false));
    if (services.includes('redis')) print(await redisDown(config));
    if (services.includes('mysql')) print(await mysqlDown(config));
  });
}

interface ServiceState {
  name: Service;
  url: string;
  up: boolean;
  /** Its pid when this services directory started it and it runs. */
  ownPid: number | undefined;
}

type ListedService = Omit<ServiceState, 'up'> & { answers: () => Promise<boolean> };

/** The services `status` lists, each with the probe that says whether it is up (not yet asked). */
function listed(config: ServicesConfig): ListedService[] {
  const paths = layout(config);
  const { first, second } = esEndpoints(config.elasticsearchUrl);
  const s3 = base(config.s3Endpoint);
  const list: ListedService[] = [
    {
      name: 'mysql',
      url: redact(config.databaseUrl),
      answers: () => mysqlAnswers(mysqlAddress(config.databaseUrl)),
      ownPid: livePid(paths.mysqlPid, MYSQL_PATTERN),
    },
    {
      name: 'redis',
      url: redact(config.redisUrl),
      answers: () => redisAnswers(redisAddress(config.redisUrl)),
      ownPid: livePid(paths.redisPid, REDIS_PATTERN),
    },
    {
      name: 'elasticsearch',
      url: first.base,
      answers: async () => (await esClusterName(first.base)) !== undefined,
      ownPid: ownNodePid(config, false),
    },
  ];
  if (selection(config, []).services.includes('elasticsearch-2')) {
    list.push({
      name: 'elasticsearch-2',
      url: second.base,
      answers: async () => (await esReady(first.base)) && (await elasticsearch2Joined(config)),
      ownPid: ownNodePid(config, true),
    });
  }
  list.push({
    name: 's3proxy',
    url: s3,
    answers: () => s3Answers(s3),
    ownPid: livePid(paths.s3proxyPid, S3PROXY_PATTERN),
  });
  return list;
}

/** Every service `status` lists and whether it is up, asked one after another. */
export async function states(config: ServicesConfig): Promise<ServiceState[]> {
  const list: ServiceState[] = [];
  for (const { answers, ...service } of listed(config)) list.push({ ...service, up: await answers() });
  return list;
}

/** One line per service; exit status 0 when every one is up, 3 (LSB "not running") otherwise. */
export async function status(config: ServicesConfig, print: (line: string) => void): Promise<number> {
  const list = await states(config);
  for (const state of list) {
    print(
      statusLine(
        state.name,
        state.up,
        state.url,
        state.ownPid ? `started by services:up, pid ${state.ownPid}` : undefined,
      ),
    );
  }
  return list.every((state) => state.up) ? 0 : 3;
}

/**
 * What this services directory started and still runs, and how to stop it: said when a run ends.
 * Its pid files say it all, so no service is asked whether it answers.
 */
export function leftRunning(config: ServicesConfig): string[] {
  const own = listed(config).filter((service) => service.ownPid !== undefined);
  if (own.length === 0) return [];
  return [
    'These services keep running for the next run:',
    ...own.map((state) => `  ${state.name.padEnd(15)} ${state.url} (pid ${state.ownPid})`),
    'Stop them with: npm run services:down',
  ];
}

/**
 * Downloads and unpacks Elasticsearch without starting it, so tests that stop a node can start
 * their own from this install even where the shared node runs from elsewhere.
 */
export async function install(
  config: ServicesConfig,
  machine: Machine = thisMachine(config.javaHome, layout(config).logs),
) {
  return withLock(config.servicesDir, async () => {
    ensureInstalled(['java'], machine);
    const installed = await ensureElasticsearchInstalled(config);
    ensureInstallReachable(installed, esOwner(config));
    return installed;
  });
}
