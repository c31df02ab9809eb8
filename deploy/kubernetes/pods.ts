/**
 * What every pod of the application shares: the image, how it is configured, and what it may do.
 * The processes' ports and drains are the `PROCESSES` table (processes.ts).
 */
import type { IContainer } from 'kubernetes-models/v1/Container';
import type { IEnvFromSource } from 'kubernetes-models/v1/EnvFromSource';
import type { IEnvVar } from 'kubernetes-models/v1/EnvVar';
import type { IPodSpec } from 'kubernetes-models/v1/PodSpec';
import type { IProbe } from 'kubernetes-models/v1/Probe';
import { CONFIG_NAME, NAMES, selectorLabels, type Component } from './names.ts';
import type { Overlay, Resources } from './overlays.ts';
import { INSTALL_COMMAND, PROCESSES, REINDEX_COMMAND } from './processes.ts';
import { imageOf, type Release } from './release.ts';
import { REDIS_PARTS, SECRET_NAME } from './secrets.ts';

/**
 * REDIS_URL from the Secret's two parts, expanded by the kubelet from the variables the Secret
 * defines (envFrom): the password must be URL-safe (docs/operations.md).
 */
export function redisUrl(overlay: Overlay): string {
  const scheme = overlay.redisTls ? 'rediss' : 'redis';
  return `${scheme}://:$(${REDIS_PARTS.password})@$(${REDIS_PARTS.address})`;
}

/**
 * The pod's Kubernetes resource attributes (OpenTelemetry's `k8s.*` conventions), each from a
 * field of the pod through the downward API, in a variable of its own that
 * OTEL_RESOURCE_ATTRIBUTES then names: the kubelet expands `$(VAR)` only from variables.
 */
export const POD_ATTRIBUTES = [
  { attribute: 'k8s.namespace.name', variable: 'K8S_NAMESPACE_NAME', fieldPath: 'metadata.namespace' },
  { attribute: 'k8s.pod.name', variable: 'K8S_POD_NAME', fieldPath: 'metadata.name' },
  { attribute: 'k8s.node.name', variable: 'K8S_NODE_NAME', fieldPath: 'spec.nodeName' },
] as const;

/**
 * What a process's spans are filed under: the service, named as its Deployment and the job its
 * metrics are scraped as, and the pod that made them. The collector's endpoint is the operator's
 * (the ConfigMap's OTEL_EXPORTER_OTLP_ENDPOINT): until it is set the process loads no tracing.
 */
function telemetryEnv(component: 'api' | 'worker'): IEnvVar[] {
  return [
    ...POD_ATTRIBUTES.map(({ variable, fieldPath }) => ({
      name: variable,
      valueFrom: { fieldRef: { fieldPath } },
    })),
    { name: 'OTEL_SERVICE_NAME', value: NAMES[component] },
    {
      name: 'OTEL_RESOURCE_ATTRIBUTES',
      value: POD_ATTRIBUTES.map(({ attribute, variable }) => `${attribute}=$(${variable})`).join(','),
    },
  ];
}

const secretEnv: IEnvFromSource = { secretRef: { name: SECRET_NAME } };
const configEnv: IEnvFromSource = { configMapRef: { name: CONFIG_NAME } };

const httpProbe = (path: string, port: string, timing: Omit<IProbe, 'httpGet'>): IProbe => ({
  httpGet: { path, port },
  ...timing,
});

/** The image, as every container runs it. */
function image(overlay: Overlay, release: Release, name: Component): IContainer {
  return { name, ...imageOf(overlay, release) };
}

/**
 * A container that can neither gain privileges nor change its files. Nothing of the application
 * writes to disk (logs go to stdout, data to the stores); /tmp is a small scratch space for a
 * library that reaches for `os.tmpdir()`.
 */
function hardened(resources: Resources): Partial<IContainer> {
  return {
    resources,
    securityContext: {
      allowPrivilegeEscalation: false,
      readOnlyRootFilesystem: true,
      capabilities: { drop: ['ALL'] },
    },
    volumeMounts: [{ name: 'tmp', mountPath: '/tmp' }],
  };
}

/** The API's or the worker's container: its command, ports, probes and configuration. */
export function processContainer(
  overlay: Overlay,
  release: Release,
  component: 'api' | 'worker',
): IContainer {
  const { entry, ports, preStopSeconds } = PROCESSES[component];
  const probePort = ports[0]!.name;
  return {
    ...image(overlay, release, component),
    command: ['node', entry],
    ports: ports.map(({ name, setting }) => ({
      name,
      containerPort: Number(overlay.settings[setting]),
    })),
    // The Secret after the ConfigMap: a key in both takes the Secret's value.
    envFrom: [configEnv, secretEnv],
    env: [
      { name: 'REDIS_URL', value: redisUrl(overlay) },
      // The metrics and worker ports listen on the pod's own address, where the kubelet's probes
      // and the scrapes arrive; loopback would refuse both, and every interface is not needed.
      { name: 'INTERNAL_HOST', valueFrom: { fieldRef: { fieldPath: 'status.podIP' } } },
      ...telemetryEnv(component),
    ],
    // Start-up (the heap rule's restart, Nest's modules) gets a minute before liveness counts.
    startupProbe: httpProbe('/health/live', probePort, { periodSeconds: 2, failureThreshold: 30 }),
    // Only the process: a store that is down restarts nothing.
    livenessProbe: httpProbe('/health/live', probePort, {
      periodSeconds: 10,
      timeoutSeconds: 3,
      failureThreshold: 3,
    }),
    // Able to serve: a store that is down is reported (`degraded`) and keeps the pod ready; only
    // starting, draining or an index older than the release's definition answer 503.
    readinessProbe: httpProbe('/health/ready', probePort, {
      periodSeconds: 5,
      timeoutSeconds: 5,
      failureThreshold: 2,
    }),
    ...(preStopSeconds > 0 ? { lifecycle: { preStop: { sleep: { seconds: preStopSeconds } } } } : {}),
    ...hardened(overlay[component].resources),
  };
}

/**
 * A one-off CLI Job's container (`jobs.ts`). The install runs as a pre-install hook, before the
 * release's other objects (the ConfigMap among them) exist: it carries the ConfigMap's settings
 * itself, rendered from the same overlay, with the Secret. A reindex is applied to a running
 * release and reads both as the processes do.
 */
export function cliJobContainer(
  overlay: Overlay,
  release: Release,
  component: 'install' | 'reindex',
): IContainer {
  const redis = { name: 'REDIS_URL', value: redisUrl(overlay) };
  return {
    ...image(overlay, release, component),
    command: component === 'install' ? INSTALL_COMMAND : REINDEX_COMMAND,
    ...(component === 'install'
      ? {
          envFrom: [secretEnv],
          env: [...Object.entries(overlay.settings).map(([name, value]) => ({ name, value })), redis],
        }
      : { envFrom: [configEnv, secretEnv], env: [redis] }),
    ...hardened(overlay.jobs.resources),
  };
}

/** A pod of the application: no Kubernetes API token, no injected Service variables. */
export function podSpec(
  overlay: Overlay,
  component: Component,
  containers: IContainer[],
  extra: Partial<IPodSpec> = {},
): IPodSpec {
  return {
    // The processes never call the Kubernetes API.
    automountServiceAccountToken: false,
    // Only the ConfigMap and the Secret configure a process, not variables named after Services.
    enableServiceLinks: false,
    ...extra,
    securityContext: {
      runAsNonRoot: true,
      // The image's `node` user: a name cannot be checked to be non-root, its id can.
      runAsUser: 1000,
      runAsGroup: 1000,
      seccompProfile: { type: 'RuntimeDefault' },
    },
    containers,
    volumes: [{ name: 'tmp', emptyDir: { sizeLimit: '64Mi' } }],
    ...(overlay.priorityClassName ? { priorityClassName: overlay.priorityClassName } : {}),
    ...(overlay.spreadOverNodes && (component === 'api' || component === 'worker')
      ? {
          // Zones first, then nodes within them. A preference, not a rule: a cluster with one zone
          // (or a zone down) still schedules every pod, and a rollout's surge pod is never stuck.
          topologySpreadConstraints: ['topology.kubernetes.io/zone', 'kubernetes.io/hostname'].map(
            (topologyKey) => ({
              maxSkew: 1,
              topologyKey,
              whenUnsatisfiable: 'ScheduleAnyway' as const,
              labelSelector: { matchLabels: selectorLabels(component) },
              // Only the pods of the current template: a rollout's old pods, about to go, weigh nothing.
              matchLabelKeys: ['pod-template-hash'],
            }),
          ),
        }
      : {}),
  };
}
