import { assertAuthConfigured, ConfigError, loadConfig } from './load-config';

function problemsOf(env: NodeJS.ProcessEnv): string[] {
  try {
    loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  return [];
}

describe('loadConfig', () => {
  it('applies the contract §9 defaults pointing at the local services', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      PORT: 3000,
      WORKER_PORT: 3001,
      INTERNAL_HOST: '127.0.0.1',
      DATABASE_URL: 'mysql://root@127.0.0.1:3306/videos',
      REDIS_URL: 'redis://127.0.0.1:6379',
      ELASTICSEARCH_URL: 'http://127.0.0.1:9200',
      ELASTICSEARCH_INDEX: 'videos',
      ELASTICSEARCH_SHARDS: 1,
      ELASTICSEARCH_REPLICAS: 0,
      S3_FORCE_PATH_STYLE: true,
      RETENTION_DEFAULT_DAYS: 30,
      PURGE_SWEEP_INTERVAL_MS: 60_000,
      METRICS_PORT: 9464,
      METRICS_REFRESH_INTERVAL_MS: 15_000,
      JWT_ALLOW_HS256: false,
      JWT_MAX_LIFETIME: 2_592_000,
      TRASH_CONCURRENCY: 1,
      TRASH_OPERATION_RETENTION_DAYS: 30,
      ERASURE_CONCURRENCY: 1,
      WEBHOOK_CONCURRENCY: 4,
    });
  });

  it('parses the values it is given', () => {
    const config = loadConfig({
      PORT: '8080',
      S3_FORCE_PATH_STYLE: 'false',
      RETENTION_DEFAULT_DAYS: '0',
      ELASTICSEARCH_SHARDS: '3',
      ELASTICSEARCH_REPLICAS: '2',
    });
    expect(config.PORT).toBe(8080);
    expect(config.ELASTICSEARCH_SHARDS).toBe(3);
    expect(loadConfig({ ELASTICSEARCH_URL: 'http://a:9200,http://b:9200' }).ELASTICSEARCH_URL).toBe(
      'http://a:9200,http://b:9200',
    );
    expect(config.ELASTICSEARCH_REPLICAS).toBe(2);
    expect(config.S3_FORCE_PATH_STYLE).toBe(false);
    expect(config.RETENTION_DEFAULT_DAYS).toBe(0);
  });

  it("reads REDIS_URL as a Redis Cluster's nodes only with REDIS_CLUSTER, and without a database", () => {
    const nodes = 'redis://a:6379, redis://b:6380';
    expect(loadConfig({ REDIS_URL: nodes, REDIS_CLUSTER: 'true' })).toMatchObject({
      REDIS_URL: nodes,
      REDIS_CLUSTER: true,
    });
    expect(loadConfig({}).REDIS_CLUSTER).toBe(false);
    expect(problemsOf({ REDIS_URL: nodes })).toEqual([
      expect.stringMatching(/^REDIS_URL: .*REDIS_CLUSTER=true/),
    ]);
    expect(problemsOf({ REDIS_URL: 'redis://a:6379/2', REDIS_CLUSTER: 'true' })).toEqual([
      expect.stringMatching(/^REDIS_URL: .*database/),
    ]);
    expect(problemsOf({ REDIS_URL: 'redis://a:6379/0', REDIS_CLUSTER: 'true' })).toEqual([]);
  });

  it.each(['0.0.0.0', '::', '10.244.1.7', 'fd00::2', 'localhost', 'pod-1.videos.svc'])(
    'takes INTERNAL_HOST=%s',
    (host) => {
      expect(loadConfig({ INTERNAL_HOST: host }).INTERNAL_HOST).toBe(host);
    },
  );

  it('treats an empty variable as unset', () => {
    expect(loadConfig({ PORT: '' }).PORT).toBe(3000);
  });

  it.each([
    ['PORT', 'abc'],
    ['PORT', '70000'],
    ['WORKER_PORT', '-1'],
    ['INTERNAL_HOST', 'http://0.0.0.0'],
    ['INTERNAL_HOST', '0.0.0.0:3001'],
    ['INTERNAL_HOST', 'two words'],
    ['INTERNAL_HOST', '-pod'],
    ['DATABASE_URL', 'postgres://localhost/videos'],
    ['REDIS_URL', 'not a url'],
    ['REDIS_URL', 'redis://a:6379,redis://b:6379'],
    ['REDIS_CLUSTER', 'yes'],
    ['ELASTICSEARCH_URL', 'ftp://host'],
    ['ELASTICSEARCH_URL', 'http://a:9200,ftp://b'],
    ['ELASTICSEARCH_INDEX', 'Videos!'],
    ['ELASTICSEARCH_SHARDS', '0'],
    ['ELASTICSEARCH_SHARDS', '1025'],
    ['ELASTICSEARCH_REPLICAS', '-1'],
    ['ELASTICSEARCH_REPLICAS', 'one'],
    ['S3_BUCKET', 'UPPER_case'],
    ['S3_FORCE_PATH_STYLE', 'yes'],
    // One key without the other: neither a key pair nor the default credential chain.
    ['S3_ACCESS_KEY_ID', 'AKIAEXAMPLE'],
    ['S3_SECRET_ACCESS_KEY', 'example-secret'],
    ['JWT_SECRET', 'short'],
    ['JWT_MAX_LIFETIME', '30d'],
    ['JWT_MAX_LIFETIME', '59'],
    ['JWT_MAX_LIFETIME', '31536001'],
    ['JWT_MAX_LIFETIME', '1e6'],
    ['RETENTION_DEFAULT_DAYS', '3651'],
    ['PURGE_SWEEP_INTERVAL_MS', '10'],
    ['WORKER_CONCURRENCY', '0'],
    ['TRASH_CONCURRENCY', '0'],
    ['TRASH_OPERATION_RETENTION_DAYS', '3651'],
    ['ERASURE_CONCURRENCY', '0'],
    ['WEBHOOK_CONCURRENCY', '0'],
    ['METRICS_PORT', '65536'],
    ['METRICS_REFRESH_INTERVAL_MS', '10'],
    ['JWT_ALLOW_HS256', 'yes'],
    ['WEBHOOK_URLS', 'ftp://receiver/hooks'],
    ['WEBHOOK_URLS', 'https://a.example/hooks,file:///etc/passwd'],
    ['WEBHOOK_SECRET', 'not-a-secret'],
    ['WEBHOOK_SECRET', `whsec_${Buffer.alloc(8).toString('base64')}`],
    ['WEBHOOK_SECRET', 'whsec_!!!!'],
    ['WEBHOOK_ALLOWED_HOSTS', 'localhost,10.0.0.0/33'],
    ['WEBHOOK_ALLOWED_HOSTS', '*.internal'],
  ])('names %s when it is %p', (name, value) => {
    const problems = problemsOf({ [name]: value });
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(new RegExp(`^${name}: `));
  });

  it('reads the webhook receivers as a list, each once, with their secret', () => {
    const secret = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;
    const config = loadConfig({
      WEBHOOK_URLS: ' https://a.example/hooks, http://b.example:8080/in,https://a.example/hooks,',
      WEBHOOK_SECRET: secret,
    });
    expect(config.WEBHOOK_URLS).toEqual(['https://a.example/hooks', 'http://b.example:8080/in']);
    expect(config.WEBHOOK_SECRET).toBe(secret);
    expect(loadConfig({}).WEBHOOK_URLS).toEqual([]);
  });

  it('refuses webhook receivers without a secret to sign with', () => {
    expect(problemsOf({ WEBHOOK_URLS: 'https://a.example/hooks' })).toEqual([
      expect.stringMatching(/^WEBHOOK_SECRET: must be set/),
    ]);
  });

  it('reads the destinations allowed although not public', () => {
    expect(loadConfig({}).WEBHOOK_ALLOWED_HOSTS).toEqual({ names: [], ranges: [] });
    expect(loadConfig({ WEBHOOK_ALLOWED_HOSTS: 'localhost,127.0.0.0/8' }).WEBHOOK_ALLOWED_HOSTS).toEqual({
      names: ['localhost'],
      ranges: [{ network: '127.0.0.0', prefix: 8, family: 'ipv4' }],
    });
    expect(problemsOf({ WEBHOOK_ALLOWED_HOSTS: 'localhost,10.0.0.0/33' })).toEqual([
      'WEBHOOK_ALLOWED_HOSTS: must be host names or IP ranges like localhost,10.0.0.0/8, separated by commas: "10.0.0.0/33" is neither',
    ]);
  });

  it('refuses a receiver whose literal address is not public unless allowed, without repeating its URL', () => {
    const secret = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;
    const receivers = 'https://hooks:s3cret@10.0.0.5/in,http://[::1]:8080/in,https://receiver.example/in';
    expect(problemsOf({ WEBHOOK_URLS: receivers, WEBHOOK_SECRET: secret })).toEqual([
      'WEBHOOK_URLS: destination 10.0.0.5 is a private address; allow it with WEBHOOK_ALLOWED_HOSTS',
      'WEBHOOK_URLS: destination ::1 is a loopback address; allow it with WEBHOOK_ALLOWED_HOSTS',
    ]);
    const allowed = {
      WEBHOOK_URLS: receivers,
      WEBHOOK_SECRET: secret,
      WEBHOOK_ALLOWED_HOSTS: '10.0.0.0/8,::1',
    };
    expect(problemsOf(allowed)).toEqual([]);
    // A name is checked at each connection, where its addresses are known.
    expect(problemsOf({ WEBHOOK_URLS: 'http://localhost:8080/in', WEBHOOK_SECRET: secret })).toEqual([]);
  });

  it('refuses two URLs that differ only in their credentials: they would be one receiver', () => {
    const secret = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;
    const receivers = 'https://a:one@receiver.example/in,https://b:two@receiver.example/in';
    expect(problemsOf({ WEBHOOK_URLS: receivers, WEBHOOK_SECRET: secret })).toEqual([
      'WEBHOOK_URLS: two URLs for receiver.example differ only in their credentials (user:password@)',
    ]);
  });

  it('requires the issuer and the audience with a JWKS, naming each', () => {
    const jwks = { JWT_JWKS_URI: 'https://issuer.example/.well-known/jwks.json' };
    expect(problemsOf(jwks)).toEqual([
      'JWT_ISSUER: must be set when JWT_JWKS_URI is',
      'JWT_AUDIENCE: must be set when JWT_JWKS_URI is',
    ]);
    expect(problemsOf({ ...jwks, JWT_ISSUER: 'https://issuer.example/' })).toEqual([
      'JWT_AUDIENCE: must be set when JWT_JWKS_URI is',
    ]);
    expect(problemsOf({ ...jwks, JWT_ISSUER: 'https://issuer.example/', JWT_AUDIENCE: 'videos' })).toEqual(
      [],
    );
    // A secret alone is what development and the tests use: no issuer or audience needed.
    expect(problemsOf({ JWT_SECRET: 'x'.repeat(32) })).toEqual([]);
  });

  it('reads JWT_ALLOW_HS256, which needs a secret to verify HS256 with', () => {
    const jwks = {
      JWT_JWKS_URI: 'https://issuer.example/.well-known/jwks.json',
      JWT_ISSUER: 'https://issuer.example/',
      JWT_AUDIENCE: 'videos',
    };
    expect(loadConfig({ ...jwks, JWT_SECRET: 'x'.repeat(32), JWT_ALLOW_HS256: 'true' }).JWT_ALLOW_HS256).toBe(
      true,
    );
    expect(problemsOf({ ...jwks, JWT_ALLOW_HS256: 'true' })).toEqual([
      expect.stringMatching(/^JWT_ALLOW_HS256: needs JWT_SECRET/),
    ]);
  });

  it('names every bad variable at once', () => {
    const problems = problemsOf({ PORT: 'x', REDIS_URL: 'y' });
    expect(problems.map((p) => p.split(':')[0]).sort()).toEqual(['PORT', 'REDIS_URL']);
  });

  it('requires a key source for the API', () => {
    expect(() => assertAuthConfigured(loadConfig({}))).toThrow(/JWT_SECRET or JWT_JWKS_URI/);
    expect(() => assertAuthConfigured(loadConfig({ JWT_SECRET: 'x'.repeat(32) }))).not.toThrow();
  });
});
