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

for (const [name, value] of Object.entries(TEST_ENV)) {
  process.env[name] = process.env[`TEST_${name}`] ?? value;
}
