/**
 * Every Kubernetes object of one environment (overlays.ts), one builder per kind. Each is a typed
 * class of kubernetes-models (or of @kubernetes-models/keda), so a field of the wrong type or name
 * fails to compile, and `validate()` checks it against Kubernetes' OpenAPI schema before any YAML
 * is written (render.ts). docs/operations.md explains each choice.
 */
import { ScaledObject } from '@kubernetes-models/keda/keda.sh/v1alpha1/ScaledObject';
import { TriggerAuthentication } from '@kubernetes-models/keda/keda.sh/v1alpha1/TriggerAuthentication';
import { Deployment } from 'kubernetes-models/apps/v1/Deployment';
import { HorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2/HorizontalPodAutoscaler';
import { Job } from 'kubernetes-models/batch/v1/Job';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1/PodDisruptionBudget';
import { ConfigMap } from 'kubernetes-models/v1/ConfigMap';
import { Service } from 'kubernetes-models/v1/Service';
import type { Overlay } from './overlays.ts';
import {
  APP,
  CONFIG_NAME,
  labels,
  migrateContainer,
  podSpec,
  PROCESSES,
  processContainer,
  selectorLabels,
  terminationGracePeriodSeconds,
  type Component,
} from './pods.ts';
import { REDIS_PARTS, SECRET_NAME } from './secrets.ts';
import { BACKLOG_FORMULA, BACKLOG_KEYS } from './worker-backlog.ts';

export const NAMES = {
  api: `${APP}-api`,
  apiMetrics: `${APP}-api-metrics`,
  dashboard: `${APP}-queue-dashboard`,
  worker: `${APP}-worker`,
  migrate: `${APP}-migrate`,
  redisAuth: `${APP}-redis`,
} as const;

/** What a builder returns: a kubernetes-models object, which can validate itself. */
export interface Manifest {
  /** The file it is written to in the overlay's directory. */
  file: string;
  object: { validate(): void; toJSON(): unknown };
}

const meta = (name: string, component: Component, version: string) => ({
  name,
  labels: labels(component, version),
});

/** What an autoscaler scales. */
const deploymentRef = (name: string) => ({ apiVersion: 'apps/v1', kind: 'Deployment', name });

export function configMap(overlay: Overlay, version: string): ConfigMap {
  return new ConfigMap({
    metadata: {
      name: CONFIG_NAME,
      labels: { 'app.kubernetes.io/name': APP, 'app.kubernetes.io/version': version },
    },
    data: { ...overlay.settings },
  });
}

export function deployment(overlay: Overlay, version: string, component: 'api' | 'worker'): Deployment {
  return new Deployment({
    metadata: meta(NAMES[component], component, version),
    spec: {
      // No replica count: the autoscaler owns it, and an apply would otherwise reset it.
      selector: { matchLabels: selectorLabels(component) },
      // A new pod is ready before an old one stops, so capacity never dips during a rollout.
      strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1, maxUnavailable: 0 } },
      revisionHistoryLimit: 5,
      template: {
        metadata: { labels: labels(component, version) },
        spec: podSpec(overlay, component, [processContainer(overlay, version, component)], {
          terminationGracePeriodSeconds: terminationGracePeriodSeconds(
            PROCESSES[component],
            overlay.settings,
          ),
        }),
      },
    },
  });
}

/** A ClusterIP Service in front of one port of a component's pods. */
export function service(
  version: string,
  name: string,
  component: 'api' | 'worker',
  port: { name: string; port: number; targetPort: string },
): Service {
  return new Service({
    metadata: meta(name, component, version),
    spec: { type: 'ClusterIP', selector: selectorLabels(component), ports: [{ ...port, protocol: 'TCP' }] },
  });
}

export function horizontalPodAutoscaler(overlay: Overlay, version: string): HorizontalPodAutoscaler {
  return new HorizontalPodAutoscaler({
    metadata: meta(NAMES.api, 'api', version),
    spec: {
      scaleTargetRef: deploymentRef(NAMES.api),
      minReplicas: overlay.api.minReplicas,
      maxReplicas: overlay.api.maxReplicas,
      metrics: [
        {
          type: 'Resource',
          resource: {
            name: 'cpu',
            target: { type: 'Utilization', averageUtilization: overlay.api.cpuUtilization },
          },
        },
      ],
    },
  });
}

/** One pod at a time may be evicted (a node drain): never all, and a single replica never blocks it. */
export function podDisruptionBudget(version: string, component: 'api' | 'worker'): PodDisruptionBudget {
  return new PodDisruptionBudget({
    metadata: meta(NAMES[component], component, version),
    spec: { maxUnavailable: 1, selector: { matchLabels: selectorLabels(component) } },
  });
}

/**
 * The worker scales on its backlog: KEDA reads each ready-jobs key (worker-backlog.ts) as its
 * Redis scaler does (a list's length, a sorted set's size), adds them up (`formula`) and asks for
 * one worker per `backlogPerWorker` jobs, between the overlay's floor and ceiling.
 */
export function scaledObject(overlay: Overlay, version: string): ScaledObject {
  const target = String(overlay.worker.backlogPerWorker);
  return new ScaledObject({
    metadata: meta(NAMES.worker, 'worker', version),
    spec: {
      scaleTargetRef: deploymentRef(NAMES.worker),
      minReplicaCount: overlay.worker.minReplicas,
      maxReplicaCount: overlay.worker.maxReplicas,
      pollingInterval: 15,
      advanced: {
        scalingModifiers: { formula: BACKLOG_FORMULA, target, metricType: 'AverageValue' },
        horizontalPodAutoscalerConfig: {
          behavior: {
            // One worker a minute once the backlog has stayed low for five: each leaving worker
            // hands its running jobs back after its drain, so shrinking fast only moves work around.
            scaleDown: {
              stabilizationWindowSeconds: 300,
              policies: [{ type: 'Pods', value: 1, periodSeconds: 60 }],
            },
          },
        },
      },
      triggers: BACKLOG_KEYS.map(({ trigger, key }) => ({
        type: 'redis',
        name: trigger,
        metadata: {
          listName: key,
          listLength: target,
          enableTLS: String(overlay.redisTls),
          // BullMQ's database: REDIS_URL names none (pods.ts), so 0.
          databaseIndex: '0',
        },
        authenticationRef: { name: NAMES.redisAuth },
      })),
    },
  });
}

/** KEDA reaches Redis with the Secret's own keys: the same server and password as the processes. */
export function triggerAuthentication(version: string): TriggerAuthentication {
  return new TriggerAuthentication({
    metadata: meta(NAMES.redisAuth, 'worker', version),
    spec: {
      secretTargetRef: [
        { parameter: 'address', name: SECRET_NAME, key: REDIS_PARTS.address },
        { parameter: 'password', name: SECRET_NAME, key: REDIS_PARTS.password },
      ],
    },
  });
}

/**
 * The migrations, run once before each rollout: Argo CD runs a PreSync hook before it applies
 * anything else, Helm a pre-install/pre-upgrade hook, and either deletes the previous run's Job
 * first (a Job's pod template cannot be changed in place). Migrations are idempotent, so a Job
 * run again by a plain `kubectl apply` does nothing harmful.
 */
export function migrationJob(overlay: Overlay, version: string): Job {
  return new Job({
    metadata: {
      ...meta(NAMES.migrate, 'migrate', version),
      annotations: {
        'argocd.argoproj.io/hook': 'PreSync',
        'argocd.argoproj.io/hook-delete-policy': 'BeforeHookCreation',
        'helm.sh/hook': 'pre-install,pre-upgrade',
        'helm.sh/hook-delete-policy': 'before-hook-creation',
      },
    },
    spec: {
      // A failed run is tried twice more (a database restarting), then the rollout stops.
      backoffLimit: 2,
      // The slowest migration so far rebuilds two tables: 16 s at a million videos (README).
      activeDeadlineSeconds: 3600,
      template: {
        metadata: { labels: labels('migrate', version) },
        spec: podSpec(overlay, 'migrate', [migrateContainer(overlay, version)], { restartPolicy: 'Never' }),
      },
    },
  });
}

/** Every object of the overlay, each with its file. */
export function manifests(overlay: Overlay, version: string): Manifest[] {
  const api = PROCESSES.api.ports;
  const port = (name: string) => Number(overlay.settings[api.find((p) => p.name === name)!.setting]);
  return [
    { file: 'configmap.yaml', object: configMap(overlay, version) },
    { file: 'migrate-job.yaml', object: migrationJob(overlay, version) },
    { file: 'api-deployment.yaml', object: deployment(overlay, version, 'api') },
    {
      file: 'api-service.yaml',
      object: service(version, NAMES.api, 'api', { name: 'http', port: 80, targetPort: 'http' }),
    },
    {
      file: 'api-metrics-service.yaml',
      object: service(version, NAMES.apiMetrics, 'api', {
        name: 'metrics',
        port: port('metrics'),
        targetPort: 'metrics',
      }),
    },
    {
      // The dashboard is served by the API at /admin/queues; a Service of its own lets it be
      // reached (port-forward, an internal ingress) without routing it through the public one.
      file: 'queue-dashboard-service.yaml',
      object: service(version, NAMES.dashboard, 'api', { name: 'http', port: 80, targetPort: 'http' }),
    },
    { file: 'api-hpa.yaml', object: horizontalPodAutoscaler(overlay, version) },
    { file: 'api-pdb.yaml', object: podDisruptionBudget(version, 'api') },
    { file: 'worker-deployment.yaml', object: deployment(overlay, version, 'worker') },
    {
      file: 'worker-service.yaml',
      object: service(version, NAMES.worker, 'worker', {
        name: 'http',
        port: Number(overlay.settings.WORKER_PORT),
        targetPort: 'http',
      }),
    },
    { file: 'worker-pdb.yaml', object: podDisruptionBudget(version, 'worker') },
    { file: 'worker-scaledobject.yaml', object: scaledObject(overlay, version) },
    { file: 'worker-triggerauthentication.yaml', object: triggerAuthentication(version) },
  ];
}
