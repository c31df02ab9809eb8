import { isIP } from 'node:net';
import { z } from 'zod';
import { bareHost, DestinationPolicy, parseAllowedHosts } from '../net/destination-policy';
import { receiverKey } from '../net/receiver-url';
import { redisUrls } from '../redis/redis';
import { commaItems } from '../util/comma-items';

/** A whole number within bounds, written as plain digits. */
const int = (min: number, max: number) => {
  const message = `must be a whole number from ${min} to ${max}`;
  return z
    .string()
    .regex(/^\d{1,15}$/, message)
    .transform(Number)
    .refine((value) => value >= min && value <= max, message)
    .meta({ values: `${min}–${max}` });
};
const port = int(1, 65535);
/** A DNS host name: dot-separated labels of letters, digits and inner hyphens. */
const HOST_NAME = /^(?=.{1,253}$)[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/i;
const flag = z
  .enum(['true', 'false', '1', '0'], { message: 'must be true or false' })
  .transform((value) => value === 'true' || value === '1')
  .meta({ values: '`true`, `false` (or `1`, `0`)' });

const isUrl = (value: string, protocols: RegExp) => {
  try {
    return protocols.test(new URL(value).protocol);
  } catch {
    return false;
  }
};

const url = (protocols: RegExp, example: string) =>
  z
    .string()
    .refine((value) => isUrl(value, protocols), { message: `must be a URL like ${example}` })
    .meta({ values: `a URL like \`${example}\`` });

/** One URL, or several separated by commas: the nodes of one cluster, for a client that fails over. */
const urlList = (protocols: RegExp, example: string) =>
  z
    .string()
    .refine((value) => commaItems(value).every((part) => isUrl(part, protocols)), {
      message: `must be a URL like ${example}, or several separated by commas`,
    })
    .meta({ values: `URLs like \`${example}\`, separated by commas` });

/** What REDIS_URL cannot mean: several servers without REDIS_CLUSTER, or a cluster's database other than 0. */
function redisUrlProblems(value: string, clustered: boolean): string[] {
  // A part that is no URL is the field's own problem, named once by its check.
  if (!commaItems(value).every((part) => isUrl(part, /^rediss?:$/))) return [];
  const urls = redisUrls(value);
  if (!clustered) {
    return urls.length > 1
      ? ['names several servers: set REDIS_CLUSTER=true for the nodes of a Redis Cluster']
      : [];
  }
  return urls.some((url) => url.pathname.length > 1 && url.pathname !== '/0')
    ? ['names a database, which a Redis Cluster does not have (only 0)']
    : [];
}

/** Webhook receivers: http(s) URLs separated by commas, each once (docs/contract.md §10.4). */
const webhookUrls = z
  .string()
  .refine((value) => commaItems(value).every((part) => part === '' || isUrl(part, /^https?:$/)), {
    message: 'must be http(s) URLs like https://receiver.example/hooks, separated by commas',
  })
  .transform((value) => [...new Set(commaItems(value).filter((part) => part !== ''))]);

/** Host names and IP ranges webhook receivers may reach although they are not public (docs/contract.md §10.4). */
const webhookAllowedHosts = z.string().transform((value, context) => {
  const allowed = parseAllowedHosts(value);
  if (!('invalid' in allowed)) return allowed;
  context.addIssue({
    code: 'custom',
    message: `must be host names or IP ranges like localhost,10.0.0.0/8, separated by commas: "${allowed.invalid}" is neither`,
  });
  return z.NEVER;
});

/** A Standard Webhooks secret: `whsec_` and the base64 of 24 to 64 random bytes. */
const webhookSecret = z.string().refine(
  (value) => {
    const encoded = /^whsec_([A-Za-z0-9+/]+={0,2})$/.exec(value)?.[1];
    const bytes = encoded ? Buffer.from(encoded, 'base64').length : 0;
    return bytes >= 24 && bytes <= 64 && encoded!.length % 4 === 0;
  },
  { message: 'must be whsec_ followed by the base64 of 24 to 64 random bytes' },
);

/**
 * `key=value` pairs separated by commas, as OpenTelemetry reads OTEL_EXPORTER_OTLP_HEADERS and
 * OTEL_RESOURCE_ATTRIBUTES. The value is never repeated: headers usually hold a collector's API key.
 */
const keyValuePairs = (example: string) =>
  z.string().refine((value) => commaItems(value).every((pair) => /^[^=\s]+=\S/.test(pair)), {
    message: `must be key=value pairs separated by commas, like ${example}`,
  });

/** The samplers OpenTelemetry's SDK for Node builds from OTEL_TRACES_SAMPLER. */
const SAMPLERS = [
  'always_on',
  'always_off',
  'traceidratio',
  'parentbased_always_on',
  'parentbased_always_off',
  'parentbased_traceidratio',
] as const;

/** Every variable the processes read, with the defaults of docs/contract.md §9 pointing at the local services. */
export const configSchema = z
  .object({
    NODE_ENV: z
      .enum(['development', 'test', 'production'])
      .default('development')
      .describe('the environment the process runs in; `test` is what the tests set'),
    LOG_LEVEL: z
      .enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])
      .default('info')
      .describe('pino level of the JSON log lines on standard output'),
    PORT: port.default(3000).describe('API port (every interface)'),
    WORKER_PORT: port.default(3001).describe("the worker's health and metrics port, on `INTERNAL_HOST`"),
    /**
     * Where the ports for operators listen (the API's metrics, the worker's health and metrics),
     * unlike PORT, which listens on every interface: loopback by default, so a scrape is never
     * answered from outside the machine; a pod sets its own address (docs/contract.md §9).
     */
    INTERNAL_HOST: z
      .string()
      .refine((value) => isIP(value) !== 0 || HOST_NAME.test(value), {
        message: 'must be an IP address or a host name to listen on, like 127.0.0.1',
      })
      .default('127.0.0.1')
      .describe("where the metrics port and the worker's port listen (pods: their own address)"),
    /**
     * The API's Prometheus scrapes, kept off the public port (docs/contract.md §9). 9464 is the port
     * Prometheus exporters of OpenTelemetry use; 0 lets the system pick a free one (the tests do).
     */
    METRICS_PORT: int(0, 65535)
      .default(9464)
      .describe("the API's `GET /metrics`, apart from `PORT`; `0` picks a free port"),
    /** How often the metrics read from MySQL and Redis are read again; a scrape only serialises them. */
    METRICS_REFRESH_INTERVAL_MS: int(100, 3_600_000)
      .default(15_000)
      .describe('how often metrics read from MySQL and Redis are read again (API and worker)'),
    DATABASE_URL: url(/^mysql:$/, 'mysql://user:password@host:3306/database')
      .default('mysql://root@127.0.0.1:3306/videos')
      .describe('MySQL; the database is created if missing'),
    /**
     * One Redis server, or with REDIS_CLUSTER some nodes of a Redis Cluster separated by commas
     * (`redis://a:6379,redis://b:6379`), every node reached with the first URL's login and TLS.
     */
    REDIS_URL: urlList(/^rediss?:$/, 'redis://host:6379')
      .default('redis://127.0.0.1:6379')
      .describe('Redis for the queues; with `REDIS_CLUSTER`, cluster nodes separated by commas'),
    /** REDIS_URL names a Redis Cluster: ioredis's cluster client, and each queue's keys in a hash slot of their own. */
    REDIS_CLUSTER: flag
      .default(false)
      .describe('`true`: `REDIS_URL` names a Redis Cluster (docs/operations.md, "Redis Cluster")'),
    /** Several nodes (`http://a:9200,http://b:9200`) let the API and worker go on when one of them is lost. */
    ELASTICSEARCH_URL: urlList(/^https?:$/, 'http://host:9200')
      .default('http://127.0.0.1:9200')
      .describe("Elasticsearch; a cluster's nodes separated by commas, to survive losing one"),
    ELASTICSEARCH_INDEX: z
      .string()
      .regex(/^[a-z0-9][a-z0-9_-]{0,100}$/, 'must be a lowercase index alias name')
      .default('videos')
      .describe('the alias searches and writes go through'),
    /**
     * Primary shards of every index the processes create. Fixed for an index's life: a new count
     * takes effect through `cli reindex` (docs/scaling.md). 1024 is Elasticsearch's own limit.
     */
    ELASTICSEARCH_SHARDS: int(1, 1024)
      .default(1)
      .describe('primary shards of a new index; an existing one changes by `cli reindex`'),
    /** Copies of each shard on other nodes: dynamic, so the worker applies a new count to the live index at start. */
    ELASTICSEARCH_REPLICAS: int(0, 100)
      .default(0)
      .describe('copies of each shard; a worker applies a new value to the live index at start'),
    S3_ENDPOINT: url(/^https?:$/, 'http://host:9000')
      .default('http://127.0.0.1:9000')
      .describe('S3-compatible endpoint'),
    S3_REGION: z.string().min(1).default('us-east-1').describe('the region the S3 client signs for'),
    S3_BUCKET: z
      .string()
      .regex(/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/, 'must be a valid S3 bucket name')
      .default('videos')
      .describe('the bucket; media live under `videos/{id}/`, the deletion ledger under `deletions/`'),
    /**
     * The S3 keys, both or neither. Neither: in production the AWS SDK's default credential chain
     * (AWS_* variables, a web identity as on EKS, the instance's role), elsewhere the local stores'
     * development keys (`s3Credentials`, storage.service.ts).
     */
    S3_ACCESS_KEY_ID: z
      .string()
      .min(1)
      .optional()
      .describe(
        "S3 access key, with `S3_SECRET_ACCESS_KEY` or not at all; unset: the AWS SDK's default credential chain in production (IRSA, workload identity, instance roles), the local services' development key elsewhere",
      ),
    S3_SECRET_ACCESS_KEY: z
      .string()
      .min(1)
      .optional()
      .describe('S3 secret key, with `S3_ACCESS_KEY_ID` or not at all'),
    S3_FORCE_PATH_STYLE: flag.default(true).describe('path-style addressing (S3Proxy, MinIO)'),
    JWT_SECRET: z
      .string()
      .min(32, 'must be at least 32 characters (HS256 key)')
      .optional()
      .describe('HS256 key (at least 32 characters); the API needs this or `JWT_JWKS_URI`'),
    /** Signs search cursors; by default a key derived from JWT_SECRET (docs/contract.md §7). */
    SEARCH_CURSOR_SECRET: z
      .string()
      .min(32, 'must be at least 32 characters')
      .optional()
      .describe(
        'key (at least 32 characters) that seals search cursors, the same on every API process; derived from `JWT_SECRET` when unset',
      ),
    JWT_JWKS_URI: url(/^https?:$/, 'https://issuer/.well-known/jwks.json')
      .optional()
      .describe("the identity provider's JWKS, for RS256/ES256 tokens"),
    JWT_ISSUER: z
      .string()
      .min(1)
      .optional()
      .describe('the `iss` tokens must carry; checked when set, required with `JWT_JWKS_URI`'),
    JWT_AUDIENCE: z
      .string()
      .min(1)
      .optional()
      .describe('the `aud` tokens must carry; checked when set, required with `JWT_JWKS_URI`'),
    /**
     * With JWT_JWKS_URI, HS256 tokens are refused unless this is true: the identity provider is then
     * the one issuer, and a shared secret that leaked would otherwise sign anything (docs/contract.md §3).
     */
    JWT_ALLOW_HS256: flag
      .default(false)
      .describe('with `JWT_JWKS_URI`, accept HS256 tokens signed with `JWT_SECRET` too'),
    /**
     * The longest a token may still be valid, in seconds (30 days by default): a token whose `exp`
     * lies further ahead is refused, as a stolen one would otherwise never stop working.
     */
    JWT_MAX_LIFETIME: int(60, 31_536_000)
      .default(2_592_000)
      .describe('the longest a token may still be valid, in seconds (30 days); a later `exp` gets 401'),
    RETENTION_DEFAULT_DAYS: int(0, 3650)
      .default(30)
      .describe('soft-delete retention when `retentionDays` is not given'),
    PURGE_SWEEP_INTERVAL_MS: int(1_000, 86_400_000)
      .default(60_000)
      .describe('how often the worker looks for due purges (and unfinished erasures and trash operations)'),
    RECONCILE_INTERVAL_MS: int(1_000, 604_800_000)
      .default(900_000)
      .describe('how often the worker compares the index with MySQL and repairs it'),
    ORPHAN_SWEEP_INTERVAL_MS: int(1_000, 604_800_000)
      .default(3_600_000)
      .describe('how often the worker deletes media no video owns'),
    /**
     * How often the worker expunges the index's deleted documents, whose text Lucene keeps until a
     * merge drops it: at most a day, so an erased video's words leave the engine's files within one.
     */
    EXPUNGE_INTERVAL_MS: int(1_000, 86_400_000)
      .default(43_200_000)
      .describe("how often the worker expunges the index's deleted documents (12 h; at most a day)"),
    /** Media younger than this are never treated as orphans: an upload may precede its row. */
    ORPHAN_GRACE_MS: int(0, 604_800_000)
      .default(3_600_000)
      .describe('media younger than this are never orphans (uploads may precede rows)'),
    /** How often a worker checks that the sweep schedules still exist in Redis (a flush loses them). */
    SCHEDULE_CHECK_INTERVAL_MS: int(1_000, 86_400_000)
      .default(60_000)
      .describe('how often a worker repairs lost sweep schedules and replaces a stuck consumer'),
    WORKER_CONCURRENCY: int(1, 256).default(4).describe('jobs a worker runs at once'),
    /** Trash operations a worker runs at once (their own queue); each is a walk of batches, one at a time. */
    TRASH_CONCURRENCY: int(1, 64)
      .default(1)
      .describe('trash operations (restore all, empty) a worker runs at once, on their own queue'),
    /** Days a completed trash operation stays readable (`GET /api/trash-operations/{id}`) before the sweep prunes it. */
    TRASH_OPERATION_RETENTION_DAYS: int(0, 3650)
      .default(30)
      .describe('days a completed trash operation stays readable, then the sweep prunes it'),
    /**
     * Erasures each worker process runs at once, on a queue of their own. One: each walk is a chain of
     * transactions of BULK_BATCH_SIZE rows that feeds the deletion queue far faster than it purges,
     * so a second walk at once would only lengthen that queue; more workers run more erasures.
     */
    ERASURE_CONCURRENCY: int(1, 64)
      .default(1)
      .describe('author erasures a worker runs at once, on a queue of their own'),
    /** Videos per transaction when the trash is restored or emptied and when an author is erased. */
    BULK_BATCH_SIZE: int(1, 5_000)
      .default(500)
      .describe('videos per transaction when a trash is restored or emptied, or an author erased'),
    /** Requests each caller may make per window; 0 turns rate limiting off. */
    RATE_LIMIT_POINTS: int(0, 10_000_000)
      .default(600)
      .describe('requests per caller per window on `/api/**` (counted in Redis); 0 turns it off'),
    RATE_LIMIT_WINDOW_SECONDS: int(1, 86_400).default(60).describe("the rate limit's window, in seconds"),
    /**
     * Points in time that cursor walks may hold open at once, all callers together and per caller
     * (the token's subject), counted in Redis across API processes (docs/contract.md §7). Each
     * holds one search context per shard it reads; Elasticsearch 9.5 bounds scrolls
     * (`search.max_open_scroll_context`, 500), not points in time: these are their only bound.
     */
    SEARCH_PIT_MAX_OPEN: int(1, 100_000)
      .default(400)
      .describe(
        'points in time cursor walks hold open at once, all callers (counted in Redis); past it: 429',
      ),
    SEARCH_PIT_MAX_PER_CALLER: int(1, 100_000)
      .default(10)
      .describe("points in time one caller's cursor walks hold at once; past it: 429"),
    /** Memory each API process may spend on rendered search items (see docs/architecture.md); 0 turns it off. */
    SEARCH_ITEM_CACHE_MB: int(0, 4_096)
      .default(32)
      .describe('memory per API process for rendered search items; 0 turns it off'),
    /**
     * How often each API process asks MySQL whether the synonym set changed (one read of its
     * version): a saved set is in force on every process within this, and the contract's 10 s.
     */
    SYNONYMS_REFRESH_INTERVAL_MS: int(100, 5_000)
      .default(2_000)
      .describe('how often each API process checks for a newly saved synonym set'),
    /** The longest the API spends on one request before answering 503 / dropping it. */
    HTTP_REQUEST_TIMEOUT_MS: int(1_000, 600_000)
      .default(30_000)
      .describe("how long the API waits to receive a request (answering: the stores' timeouts)"),
    /** The longest a client may take to send a request's headers (at most HTTP_REQUEST_TIMEOUT_MS counts). */
    HTTP_HEADERS_TIMEOUT_MS: int(1_000, 600_000)
      .default(10_000)
      .describe('how long a client may take to send its headers; a body no route takes is refused unread'),
    SHUTDOWN_TIMEOUT_MS: int(1, 3_600_000)
      .default(30_000)
      .describe('how long a stopping process waits for work in flight'),
    ADMIN_USERNAME: z.string().min(1).optional().describe('queue dashboard user (HTTP Basic)'),
    ADMIN_PASSWORD: z
      .string()
      .min(12, 'must be at least 12 characters')
      .optional()
      .describe('queue dashboard password (at least 12 characters)'),
    /** Where every event is delivered; none by default (events are still recorded). */
    WEBHOOK_URLS: webhookUrls
      .default([])
      .describe('webhook receivers: http(s) URLs separated by commas (docs/api.md, "Events")'),
    /** Receivers' destinations allowed although loopback, private, link-local, metadata, …; none by default. */
    WEBHOOK_ALLOWED_HOSTS: webhookAllowedHosts
      .default({ names: [], ranges: [] })
      .describe('host names and IP ranges receivers may reach although not public (docs/api.md, "Events")'),
    WEBHOOK_SECRET: webhookSecret
      .optional()
      .describe('`whsec_` + base64 of 24–64 random bytes; required with `WEBHOOK_URLS`'),
    /**
     * Delivery attempts in flight to one receiver, all worker processes together, on that receiver's
     * own queue: a receiver that never answers holds these slots, never another receiver's, and
     * more workers never mean more load on a receiver. Each worker writes it to the queue at start.
     */
    WEBHOOK_CONCURRENCY: int(1, 256)
      .default(4)
      .describe(
        "attempts in flight to each receiver across all workers together, on the receiver's own queue; the last worker started sets it",
      ),
    /** The longest one delivery attempt may take, connection to last byte read. */
    WEBHOOK_TIMEOUT_MS: int(100, 60_000).default(5_000).describe('the longest one delivery attempt may take'),
    /** The wait after a delivery's first failure; it doubles with each further failure, up to the maximum. */
    WEBHOOK_RETRY_BASE_MS: int(100, 86_400_000)
      .default(5_000)
      .describe("wait after a delivery's first failure; doubles with each further one"),
    WEBHOOK_RETRY_MAX_MS: int(100, 86_400_000)
      .default(7_200_000)
      .describe('the longest wait between two attempts of a delivery'),
    /** How long a delivery is retried after its first attempt before it is marked dead (72 hours by default). */
    WEBHOOK_RETRY_WINDOW_MS: int(1_000, 2_592_000_000)
      .default(259_200_000)
      .describe('retried this long (72 h) after its first failure, then dead'),
    /** How often the worker looks in MySQL for deliveries that are due (new events, retries, after a Redis loss). */
    WEBHOOK_SWEEP_INTERVAL_MS: int(100, 3_600_000)
      .default(1_000)
      .describe('how often the worker looks in MySQL for due deliveries'),
    /** Days a delivered event is kept after its delivery (dead deliveries: 30 days after their last attempt). */
    OUTBOX_RETENTION_DAYS: int(0, 3650)
      .default(7)
      .describe('days a delivered event is kept after its delivery; dead ones: 30'),
    /**
     * How often the worker prunes the outbox. An erased author's events go at the first run after
     * their deliveries settle, so this is also how long such an event outlives its delivery.
     */
    OUTBOX_PRUNE_INTERVAL_MS: int(1_000, 86_400_000)
      .default(60_000)
      .describe("how often the worker prunes the outbox (and deletes erased authors' events)"),
    /**
     * Tracing (docs/tracing.md): off unless set. The OTLP/HTTP collector's base URL; spans go to
     * `<url>/v1/traces`. The SDK reads this and every other OTEL_* variable itself; the ones below
     * are checked here so that a typo stops the process with its name instead of tracing nothing.
     */
    OTEL_EXPORTER_OTLP_ENDPOINT: url(/^https?:$/, 'http://collector:4318')
      .optional()
      .describe('OTLP/HTTP collector, e.g. `http://collector:4318`: traces on (docs/tracing.md)'),
    /** Over HTTP only: the SDK's gRPC exporter would bring a second HTTP/2 stack into every process. */
    OTEL_EXPORTER_OTLP_PROTOCOL: z
      .enum(['http/protobuf', 'http/json'], { message: 'must be http/protobuf or http/json' })
      .default('http/protobuf')
      .describe('how spans are encoded for the collector'),
    OTEL_EXPORTER_OTLP_HEADERS: keyValuePairs('api-key=…,tenant=…')
      .optional()
      .describe("`key=value,…` sent with each export (a tracing backend's API key)"),
    /** By default `video-api` or `video-worker`, after the process. */
    OTEL_SERVICE_NAME: z
      .string()
      .min(1)
      .optional()
      .describe('the service the spans are filed under; `video-api` or `video-worker` when unset'),
    /** Read by the SDK's resource detector; the Kubernetes manifests give the pod's own. */
    OTEL_RESOURCE_ATTRIBUTES: keyValuePairs('deployment.environment.name=prod,k8s.pod.name=…')
      .optional()
      .describe("`key=value,…` attributes of every span's resource (the pod's namespace, name and node)"),
    OTEL_TRACES_SAMPLER: z
      .enum(SAMPLERS, { message: `must be one of ${SAMPLERS.join(', ')}` })
      .default('parentbased_always_on')
      .describe('which traces are kept: `parentbased_traceidratio` with a ratio'),
    /** The ratio of the `*traceidratio` samplers. */
    OTEL_TRACES_SAMPLER_ARG: z
      .string()
      .regex(/^(0(\.\d+)?|1(\.0+)?)$/, 'must be a ratio from 0 to 1, like 0.1')
      .transform(Number)
      .optional()
      .describe('the ratio (0 to 1) of the `*traceidratio` samplers'),
  })
  .superRefine((config, context) => {
    // Zod runs this even when a field failed: only values that parsed count.
    if (Array.isArray(config.WEBHOOK_URLS) && config.WEBHOOK_URLS.length > 0 && !config.WEBHOOK_SECRET) {
      context.addIssue({
        code: 'custom',
        path: ['WEBHOOK_SECRET'],
        message: 'must be set when WEBHOOK_URLS is (deliveries are signed with it)',
      });
    }
    if (Array.isArray(config.WEBHOOK_URLS) && Array.isArray(config.WEBHOOK_ALLOWED_HOSTS.ranges)) {
      for (const message of receiverProblems(
        config.WEBHOOK_URLS,
        new DestinationPolicy(config.WEBHOOK_ALLOWED_HOSTS),
      )) {
        context.addIssue({ code: 'custom', path: ['WEBHOOK_URLS'], message });
      }
    }
    if (typeof config.REDIS_URL === 'string') {
      for (const message of redisUrlProblems(config.REDIS_URL, config.REDIS_CLUSTER === true)) {
        context.addIssue({ code: 'custom', path: ['REDIS_URL'], message });
      }
    }
    // An identity provider's keys sign tokens for many applications: only its issuer's tokens for
    // this API's audience may pass (docs/contract.md §3).
    for (const name of ['JWT_ISSUER', 'JWT_AUDIENCE'] as const) {
      if (config.JWT_JWKS_URI && !config[name]) {
        context.addIssue({ code: 'custom', path: [name], message: 'must be set when JWT_JWKS_URI is' });
      }
    }
    // A ratio the SDK would ignore: the operator meant some other sampler.
    if (
      typeof config.OTEL_TRACES_SAMPLER_ARG === 'number' &&
      !String(config.OTEL_TRACES_SAMPLER).endsWith('traceidratio')
    ) {
      context.addIssue({
        code: 'custom',
        path: ['OTEL_TRACES_SAMPLER_ARG'],
        message: 'is read only by OTEL_TRACES_SAMPLER=traceidratio or parentbased_traceidratio',
      });
    }
    // A key without its other half is neither a key pair nor the default credential chain.
    const s3Keys = ['S3_ACCESS_KEY_ID', 'S3_SECRET_ACCESS_KEY'] as const;
    const setKeys = s3Keys.filter((name) => config[name] !== undefined);
    if (setKeys.length === 1) {
      const other = s3Keys.find((name) => name !== setKeys[0])!;
      context.addIssue({
        code: 'custom',
        path: [setKeys[0]!],
        message: `is set without ${other}: set both, or neither for the AWS SDK's default credential chain`,
      });
    }
    if (config.JWT_ALLOW_HS256 === true && !config.JWT_SECRET) {
      context.addIssue({
        code: 'custom',
        path: ['JWT_ALLOW_HS256'],
        message: 'needs JWT_SECRET (the key HS256 tokens are verified with)',
      });
    }
  });

/**
 * What is wrong with receivers that parsed: an address the policy refuses is known now when the
 * host is a literal (names are checked at each connection), and two URLs that differ only in
 * their credentials would be one receiver. No message repeats a URL, which may hold a password.
 */
function receiverProblems(urls: string[], policy: DestinationPolicy): string[] {
  const problems: string[] = [];
  const keys = new Set<string>();
  for (const url of urls) {
    const host = bareHost(new URL(url).hostname);
    const refusal = isIP(host) ? policy.refusal(host, host) : undefined;
    if (refusal) problems.push(refusal);
    const key = receiverKey(url);
    if (keys.has(key))
      problems.push(`two URLs for ${host} differ only in their credentials (user:password@)`);
    keys.add(key);
  }
  return problems;
}

export type AppConfig = z.infer<typeof configSchema>;

/**
 * Whether a process with this configuration traces: OTEL_EXPORTER_OTLP_ENDPOINT is set. The one
 * test of it, for the SDK's start and for the code that carries context across boundaries only
 * then (jobs' data, the search client's retries).
 */
export function tracingOn(config: Pick<AppConfig, 'OTEL_EXPORTER_OTLP_ENDPOINT'>): boolean {
  return config.OTEL_EXPORTER_OTLP_ENDPOINT !== undefined;
}
