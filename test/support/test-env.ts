/**
 * Tests use their own database, index alias and bucket on the same local services, so a running
 * demo keeps its data. `TEST_<NAME>` overrides one (CI may point elsewhere); a plain `<NAME>` in
 * the shell does not, so tests never wipe the development database by accident.
 */
export const TEST_ENV = {
  NODE_ENV: 'test',
  LOG_LEVEL: 'warn',
  DATABASE_URL: 'mysql://root@127.0.0.1:3306/videos_test',
  REDIS_URL: 'redis://127.0.0.1:6379',
  ELASTICSEARCH_URL: 'http://127.0.0.1:9200',
  ELASTICSEARCH_INDEX: 'videos_test',
  S3_ENDPOINT: 'http://127.0.0.1:9000',
  S3_BUCKET: 'videos-test',
  JWT_SECRET: 'test-secret-test-secret-test-secret-0123456789',
  // Tests make many calls with one token; the rate-limit test sets its own limit.
  RATE_LIMIT_POINTS: '1000000',
  // Any free port for an API's metrics, so that APIs started side by side never contend for the
  // default; `startService` gives each one a port it knows.
  METRICS_PORT: '0',
} as const;

type StoreSetting = 'DATABASE_URL' | 'REDIS_URL' | 'ELASTICSEARCH_INDEX' | 'S3_BUCKET';

/**
 * The stores of jest worker `worker`: the first uses the names it is given, worker n the same
 * database, index alias and bucket suffixed with `_wn` (`-wn` for the bucket) and the Redis
 * database n - 1 places on. Files that run side by side then never meet in a store, and a run of
 * one file (or of files one at a time) uses the plain names.
 */
export function workerStores(
  base: Record<StoreSetting, string>,
  worker: number,
): Record<StoreSetting, string> {
  if (worker <= 1) return { ...base };
  const database = new URL(base.DATABASE_URL);
  database.pathname = `${database.pathname}_w${worker}`;
  const redis = new URL(base.REDIS_URL);
  redis.pathname = `/${Number(redis.pathname.slice(1) || '0') + worker - 1}`;
  return {
    DATABASE_URL: database.toString(),
    REDIS_URL: redis.toString(),
    ELASTICSEARCH_INDEX: `${base.ELASTICSEARCH_INDEX}_w${worker}`,
    S3_BUCKET: `${base.S3_BUCKET}-w${worker}`,
  };
}

for (const [name, value] of Object.entries(TEST_ENV)) {
  process.env[name] = process.env[`TEST_${name}`] ?? value;
}

/** The names above, as this process's jest worker derives them (global setup runs as worker 1). */
export const baseStores: Record<StoreSetting, string> = {
  DATABASE_URL: process.env.DATABASE_URL!,
  REDIS_URL: process.env.REDIS_URL!,
  ELASTICSEARCH_INDEX: process.env.ELASTICSEARCH_INDEX!,
  S3_BUCKET: process.env.S3_BUCKET!,
};

Object.assign(process.env, workerStores(baseStores, Number(process.env.JEST_WORKER_ID ?? '1')));
