import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { Deployment } from 'kubernetes-models/apps/v1/Deployment';
import { Job } from 'kubernetes-models/batch/v1/Job';
import { ConfigMap } from 'kubernetes-models/v1/ConfigMap';
import type { IContainer } from 'kubernetes-models/v1/Container';
import { configSchema, tracingOn } from '@app/shared/config/config.schema';
import { assertAuthConfigured, loadConfig } from '@app/shared/config/load-config';
import { redisUrls } from '@app/shared/redis/redis';
import { s3Credentials } from '@app/shared/storage/storage.service';
import { NAMES } from './names.ts';
import { OVERLAYS } from './overlays.ts';
import { POD_ATTRIBUTES } from './pods.ts';
import { readOnDemand, readOverlay } from './rendered.ts';
import { REDIS_PARTS, SECRET_KEYS, SECRET_NAME, type SecretKey } from './secrets.ts';

const ROOT = resolve(__dirname, '../..');

/** A Secret as an operator would create it, with values of the right shape. */
const SECRET: Partial<Record<SecretKey['name'], string>> = {
  DATABASE_URL: 'mysql://videos:db-password@mysql.videos.svc:3306/videos',
  REDIS_ADDRESS: 'redis.videos.svc:6379',
  REDIS_PASSWORD: 'redis-password',
  ELASTICSEARCH_URL: 'http://es-0.videos.svc:9200,http://es-1.videos.svc:9200',
  S3_ENDPOINT: 'https://s3.eu-west-1.amazonaws.com',
  JWT_SECRET: 'a-jwt-secret-of-at-least-thirty-two-characters',
};
/** The S3 keys, which a Secret may leave out for the pods' own identity. */
const S3_KEYS = { S3_ACCESS_KEY_ID: 'AKIAEXAMPLE', S3_SECRET_ACCESS_KEY: 'example-secret-access-key' };
const requiredSecret = Object.fromEntries(
  SECRET_KEYS.filter((key) => key.required).map((key) => [key.name, SECRET[key.name]!]),
);

/**
 * The settings (configSchema) whose defaults point at this machine's services or are their
 * development credentials: a deployment that left one unset would reach for 127.0.0.1.
 */
const developmentDefaults = Object.entries(loadConfig({}))
  .filter(([, value]) => typeof value === 'string' && /127\.0\.0\.1|localhost|videos-local/.test(value))
  .map(([name]) => name);

/** The pod's fields the kubelet gives through the downward API, as a pod of the cluster has them. */
const POD_FIELDS: Record<string, string> = {
  'status.podIP': '10.244.1.7',
  'metadata.namespace': 'videos',
  'metadata.name': 'video-search-api-7c9d8f6b5-x2x4q',
  'spec.nodeName': 'node-eu-west-1a-3',
};

/** The environment the kubelet gives a container: its sources in order, then `env` with `$(VAR)` expanded. */
function environment(
  container: IContainer,
  configMap: Record<string, string>,
  secret: Record<string, string>,
) {
  const env: Record<string, string> = {};
  for (const source of container.envFrom ?? []) Object.assign(env, source.configMapRef ? configMap : secret);
  for (const { name, value = '', valueFrom } of container.env ?? []) {
    const field = valueFrom?.fieldRef?.fieldPath;
    if (field !== undefined) {
      if (POD_FIELDS[field] === undefined) throw new Error(`${container.name}: ${name} reads ${field}`);
      env[name] = POD_FIELDS[field];
      continue;
    }
    env[name] = value.replace(/\$\(([A-Za-z_][A-Za-z0-9_]*)\)/g, (_, ref: string) => {
      if (env[ref] === undefined)
        throw new Error(`${container.name}: ${name} names $(${ref}), which nothing defines`);
      return env[ref];
    });
  }
  return env;
}

describe.each(OVERLAYS.map((overlay) => [overlay.name] as const))('the %s configuration', (name) => {
  const objects = readOverlay(ROOT, { name });
  const configMap = objects.filter(ConfigMap.is)[0]!.data!;
  const jobs = [...objects, ...readOnDemand(ROOT, { name }).values()].filter(Job.is);
  const containers = [...objects.filter(Deployment.is), ...jobs].flatMap(
    (owner) => owner.spec!.template.spec!.containers,
  );
  const api = containers.find((container) => container.name === 'api')!;

  it('starts every process: the schema accepts what the ConfigMap and the Secret give, and the API can authenticate', () => {
    expect(containers.map((container) => container.name).sort()).toEqual([
      'api',
      'install',
      'reindex',
      'worker',
    ]);
    for (const container of containers) {
      expect(() => loadConfig(environment(container, configMap, requiredSecret))).not.toThrow();
    }
    expect(() => assertAuthConfigured(loadConfig(environment(api, configMap, requiredSecret)))).not.toThrow();
    // Without the Secret's key the API would refuse to start: JWT_SECRET is needed, not decoration.
    const withoutKey = Object.fromEntries(
      Object.entries(requiredSecret).filter(([key]) => key !== 'JWT_SECRET'),
    );
    expect(() => assertAuthConfigured(loadConfig(environment(api, configMap, withoutKey)))).toThrow(
      /JWT_SECRET/,
    );
  });

  it('leaves no process on a development default: every such setting comes from the Secret or the pod', () => {
    expect(developmentDefaults.sort()).toEqual(
      ['DATABASE_URL', 'ELASTICSEARCH_URL', 'INTERNAL_HOST', 'REDIS_URL', 'S3_ENDPOINT'].sort(),
    );
    for (const container of containers) {
      const env = environment(container, configMap, requiredSecret);
      const missing = developmentDefaults.filter((setting) => env[setting] === undefined);
      // The CLI Jobs listen on nothing: no address for probes and scrapes.
      const listens = container.name === 'api' || container.name === 'worker';
      expect({ container: container.name, missing }).toEqual({
        container: container.name,
        missing: listens ? [] : ['INTERNAL_HOST'],
      });
      expect(env.NODE_ENV).toBe('production');
    }
  });

  it('names only variables the processes read, and the Secret only those it is documented to hold', () => {
    const known = new Set<string>([
      ...Object.keys(configSchema.shape),
      ...Object.values(REDIS_PARTS),
      ...POD_ATTRIBUTES.map((pod) => pod.variable),
    ]);
    const named = [
      ...Object.keys(configMap),
      ...SECRET_KEYS.map((key) => key.name),
      ...containers.flatMap((container) => (container.env ?? []).map((variable) => variable.name)),
    ];
    expect(named.filter((variable) => !known.has(variable))).toEqual([]);
    // What is secret stays in the Secret: no credential or address of a store in the ConfigMap.
    expect(Object.keys(configMap).filter((key) => SECRET_KEYS.some((secret) => secret.name === key))).toEqual(
      [],
    );
  });

  it("reaches S3 with the Secret's keys when it has them, else with the AWS SDK's default credential chain", () => {
    for (const container of containers) {
      const withKeys = loadConfig(environment(container, configMap, { ...requiredSecret, ...S3_KEYS }));
      expect(s3Credentials(withKeys)).toEqual({
        accessKeyId: S3_KEYS.S3_ACCESS_KEY_ID,
        secretAccessKey: S3_KEYS.S3_SECRET_ACCESS_KEY,
      });
      // Never the development keys: a Secret without keys means the pod's own identity.
      expect(s3Credentials(loadConfig(environment(container, configMap, requiredSecret)))).toBeUndefined();
    }
  });

  it("listens for probes and scrapes on the pod's address, the public port on every interface", () => {
    for (const container of containers.filter((c) => c.name === 'api' || c.name === 'worker')) {
      const config = loadConfig(environment(container, configMap, requiredSecret));
      expect([container.name, config.INTERNAL_HOST]).toEqual([container.name, POD_FIELDS['status.podIP']]);
    }
  });

  it("files each process's spans under its Deployment's name with the pod's namespace, name and node, tracing off until the operator names a collector", () => {
    for (const container of containers.filter((c) => c.name === 'api' || c.name === 'worker')) {
      const env = environment(container, configMap, requiredSecret);
      const config = loadConfig(env);
      expect(tracingOn(config)).toBe(false);
      expect(config.OTEL_SERVICE_NAME).toBe(NAMES[container.name as 'api' | 'worker']);
      // As the SDK's resource detector reads it: comma-separated key=value pairs.
      const attributes = Object.fromEntries(
        config.OTEL_RESOURCE_ATTRIBUTES!.split(',').map((pair) => pair.split('=') as [string, string]),
      );
      expect(attributes).toEqual({
        'k8s.namespace.name': POD_FIELDS['metadata.namespace'],
        'k8s.pod.name': POD_FIELDS['metadata.name'],
        'k8s.node.name': POD_FIELDS['spec.nodeName'],
      });
      const traced = loadConfig({
        ...env,
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://otel-collector.monitoring:4318',
      });
      expect(tracingOn(traced)).toBe(true);
    }
  });

  it('builds REDIS_URL from the two parts KEDA reads, for the processes to reach the same server', () => {
    for (const password of ['redis-password', '']) {
      const env = environment(api, configMap, { ...requiredSecret, [REDIS_PARTS.password]: password });
      const config = loadConfig(env);
      const [url, ...more] = redisUrls(config.REDIS_URL);
      expect(more).toEqual([]);
      expect({ host: url!.hostname, port: url!.port, password: decodeURIComponent(url!.password) }).toEqual({
        host: 'redis.videos.svc',
        port: '6379',
        password,
      });
      // The autoscaler's scaler and the processes' client agree on whether it is a cluster.
      expect(config.REDIS_CLUSTER).toBe(OVERLAYS.find((overlay) => overlay.name === name)!.redisCluster);
    }
  });
});

describe('docs/operations.md', () => {
  it('creates the Secret with every key a deployment needs', () => {
    const docs = readFileSync(resolve(ROOT, 'docs/operations.md'), 'utf8');
    const command =
      new RegExp(`kubectl create secret generic ${SECRET_NAME}[^\\n]*(\\n\\s+--[^\\n]*)+`).exec(docs)?.[0] ??
      '';
    for (const key of SECRET_KEYS.filter((secret) => secret.required)) {
      expect(command).toContain(`--from-literal=${key.name}=`);
    }
  });
});
