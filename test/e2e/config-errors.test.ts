import { ENTRY, runProcess } from '../support/processes';
import { TEST_WEBHOOK_SECRET } from '../support/webhook-receiver';

describe('configuration errors stop the process and name the variable', () => {
  it.each([
    ['api', ENTRY.api, { PORT: 'eighty' }, /PORT: must be a whole number from 1 to 65535/],
    ['api', ENTRY.api, { JWT_SECRET: '', JWT_JWKS_URI: '' }, /JWT_SECRET or JWT_JWKS_URI/],
    [
      'worker',
      ENTRY.worker,
      { DATABASE_URL: 'postgres://127.0.0.1/videos' },
      /DATABASE_URL: must be a URL like mysql:/,
    ],
    ['worker', ENTRY.worker, { WORKER_CONCURRENCY: '0' }, /WORKER_CONCURRENCY: must be a whole number/],
    ['cli', ENTRY.cli, { S3_FORCE_PATH_STYLE: 'maybe' }, /S3_FORCE_PATH_STYLE: must be true or false/],
    ['worker', ENTRY.worker, { WEBHOOK_URLS: 'file:///etc/passwd' }, /WEBHOOK_URLS: must be http\(s\) URLs/],
    ['api', ENTRY.api, { WEBHOOK_URLS: 'https://receiver.example/hooks' }, /WEBHOOK_SECRET: must be set/],
    [
      'worker',
      ENTRY.worker,
      { WEBHOOK_URLS: 'http://169.254.169.254/latest', WEBHOOK_SECRET: TEST_WEBHOOK_SECRET },
      /WEBHOOK_URLS: destination 169\.254\.169\.254 is a cloud metadata address; allow it with WEBHOOK_ALLOWED_HOSTS/,
    ],
    [
      'api',
      ENTRY.api,
      { WEBHOOK_ALLOWED_HOSTS: 'localhost,10.0.0.0/99' },
      /WEBHOOK_ALLOWED_HOSTS: must be host names or IP ranges/,
    ],
    [
      'api',
      ENTRY.api,
      { JWT_JWKS_URI: 'https://issuer.example/.well-known/jwks.json', JWT_AUDIENCE: 'videos' },
      /^ {2}- JWT_ISSUER: must be set when JWT_JWKS_URI is$/m,
    ],
    [
      'api',
      ENTRY.api,
      { JWT_JWKS_URI: 'https://issuer.example/.well-known/jwks.json', JWT_ISSUER: 'https://issuer.example/' },
      /^ {2}- JWT_AUDIENCE: must be set when JWT_JWKS_URI is$/m,
    ],
    ['api', ENTRY.api, { METRICS_PORT: '99999' }, /METRICS_PORT: must be a whole number from 0 to 65535/],
    // Before the SDK starts: a tracing setting with a typo must not quietly trace nothing.
    [
      'api',
      ENTRY.api,
      { OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318' },
      /OTEL_EXPORTER_OTLP_ENDPOINT: must be a URL like http:\/\/collector:4318/,
    ],
    [
      'worker',
      ENTRY.worker,
      { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318', OTEL_TRACES_SAMPLER: 'sometimes' },
      /OTEL_TRACES_SAMPLER: must be one of always_on/,
    ],
  ])(
    '%s with %p',
    async (_name, entry, env, message) => {
      const args = entry === ENTRY.cli ? ['migrate'] : [];
      const result = await runProcess(entry, args, env);
      expect(result.code).toBe(78);
      expect(result.output).toMatch(message);
    },
    60_000,
  );
});
