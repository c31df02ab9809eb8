import { join } from 'node:path';
import { fail } from './report.ts';

/**
 * Pinned versions: the newest 9.x integ-test-zip that resolves on Maven Central, and the newest
 * S3Proxy. Their SHA-1s are pinned too (docs/local-services.md): the downloads are checked against
 * them and against whatever checksum Maven Central serves beside the file.
 */
export const PINNED = {
  elasticsearch: { version: '9.5.3', sha1: 'b68fd022c00824b5406b0ed2df50b2bdb9e9bd0f' },
  s3proxy: { version: '4.1.0', sha1: '0a0b89e982bc1b1b5757d45b61109e05a840dd87' },
} as const;

/** Elasticsearch 9 needs Java 21 or newer; S3Proxy runs on the same Java. */
export const MIN_JAVA = 21;

export interface ServicesConfig {
  root: string;
  databaseUrl: string;
  /** As the application takes it: one server, or with `redisCluster` some nodes of a cluster separated by commas. */
  redisUrl: string;
  /** REDIS_CLUSTER: a cluster is the operator's to start; services:up only checks that it answers. */
  redisCluster: boolean;
  /** As the application takes it: the nodes separated by commas; the second is elasticsearch-2's. */
  elasticsearchUrl: string;
  s3Endpoint: string;
  s3Bucket: string;
  s3AccessKeyId: string;
  s3SecretAccessKey: string;
  s3Region: string;
  /** Data, configuration, logs and pid files. */
  servicesDir: string;
  /** Downloads and the unpacked Elasticsearch (git-ignored). */
  cacheDir: string;
  esVersion: string;
  s3proxyVersion: string;
  esHeap: string;
  /** 2 adds elasticsearch-2 to what up, down and status handle by default. */
  esNodes: 1 | 2;
  /** Node-to-node ports, fixed only when the nodes form a cluster. */
  esTransportPort: number;
  es2TransportPort: number;
  esExtraJavaOpts: string;
  esStartTimeoutS: number;
  /** The unprivileged user that runs Elasticsearch when this runs as root. */
  esUser: string;
  /** `ES_JAVA_HOME` when set; otherwise the Java is looked for (java.ts). */
  javaHome: string | undefined;
  s3proxyHeap: string;
}

/** The same variables the application reads, so services come up where it looks for them. */
export function servicesConfig(root: string, env: NodeJS.ProcessEnv = process.env): ServicesConfig {
  const value = (name: string, fallback: string) =>
    env[name] === undefined || env[name] === '' ? fallback : env[name];
  const esNodes = value('ES_NODES', '1');
  if (esNodes !== '1' && esNodes !== '2') fail(`ES_NODES must be 1 or 2, not '${esNodes}'`);
  const esTransportPort = Number(value('ES_TRANSPORT_PORT', '9300'));
  return {
    root,
    databaseUrl: value('DATABASE_URL', 'mysql://root@127.0.0.1:3306/videos'),
    redisUrl: value('REDIS_URL', 'redis://127.0.0.1:6379'),
    redisCluster: ['true', '1'].includes(value('REDIS_CLUSTER', 'false')),
    elasticsearchUrl: value('ELASTICSEARCH_URL', 'http://127.0.0.1:9200'),
    s3Endpoint: value('S3_ENDPOINT', 'http://127.0.0.1:9000'),
    s3Bucket: value('S3_BUCKET', 'videos'),
    s3AccessKeyId: value('S3_ACCESS_KEY_ID', 'videos-local'),
    s3SecretAccessKey: value('S3_SECRET_ACCESS_KEY', 'videos-local-secret'),
    s3Region: value('S3_REGION', 'us-east-1'),
    servicesDir: value('SERVICES_DIR', join(root, '.data')),
    cacheDir: value('SERVICES_CACHE', join(root, '.cache')),
    esVersion: value('ES_VERSION', PINNED.elasticsearch.version),
    s3proxyVersion: value('S3PROXY_VERSION', PINNED.s3proxy.version),
    esHeap: value('ES_HEAP', '512m'),
    esNodes: esNodes === '2' ? 2 : 1,
    esTransportPort,
    es2TransportPort: Number(value('ES2_TRANSPORT_PORT', String(esTransportPort + 1))),
    esExtraJavaOpts: value('ES_EXTRA_JAVA_OPTS', ''),
    esStartTimeoutS: Number(value('ES_START_TIMEOUT', '180')),
    esUser: value('ES_USER', 'videos-es'),
    javaHome: env.ES_JAVA_HOME || undefined,
    s3proxyHeap: value('S3PROXY_HEAP', '256m'),
  };
}

/** Where each thing lives under the services and cache directories. */
export function layout(config: ServicesConfig) {
  const { servicesDir, cacheDir } = config;
  const logs = join(servicesDir, 'logs');
  const pids = join(servicesDir, 'pids');
  return {
    logs,
    pids,
    downloads: join(cacheDir, 'downloads'),
    esHome: join(cacheDir, `elasticsearch-${config.esVersion}`),
    esZip: join(cacheDir, 'downloads', `elasticsearch-${config.esVersion}.zip`),
    s3proxyJar: join(cacheDir, 'downloads', `s3proxy-${config.s3proxyVersion}-jar-with-dependencies.jar`),
    s3proxyDir: join(servicesDir, 's3proxy'),
    s3DataDir: join(servicesDir, 's3'),
    redisDir: join(servicesDir, 'redis'),
    /** These pid files are also the "started here" markers: only what they name is ever stopped. */
    mysqlPid: join(pids, 'mysql.pid'),
    redisPid: join(pids, 'redis.pid'),
    s3proxyPid: join(pids, 's3proxy.pid'),
    /** The URL each managed JVM was started for: one services directory holds one of each. */
    s3proxyUrl: join(pids, 's3proxy.url'),
  };
}
