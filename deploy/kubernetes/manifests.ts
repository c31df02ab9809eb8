/**
 * Every Kubernetes object of one environment (overlays.ts), one builder per kind. Each is a typed
 * class of kubernetes-models (or of @kubernetes-models/keda), so a field of the wrong type or name
 * fails to compile, and `validate()` checks it against Kubernetes' OpenAPI schema before any YAML
 * is written (render.ts). docs/operations.md explains each choice.
 */
import { Deployment } from 'kubernetes-models/apps/v1/Deployment';
import { Job } from 'kubernetes-models/batch/v1/Job';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1/PodDisruptionBudget';
import { ConfigMap } from 'kubernetes-models/v1/ConfigMap';
import { Service } from 'kubernetes-models/v1/Service';
import { createHash } from 'node:crypto';
import { horizontalPodAutoscaler, scaledObject } from './autoscaling.ts';
import { podMonitor, prometheusRule, type RuleGroup } from './monitoring.ts';
import { APP, CONFIG_NAME, labels, meta, NAMES, selectorLabels } from './names.ts';
import { networkPolicy, publicIngress, queueDashboardIngress } from './network.ts';
import type { Overlay } from './overlays.ts';
import { cliJobContainer, podSpec, processContainer } from './pods.ts';
import { PROCESSES, terminationGracePeriodSeconds } from './processes.ts';
import type { Release } from './release.ts';

/** What every builder is given besides the overlay. */
export interface RenderInput {
  /** The package's version: a label, never the image's reference. */
  version: string;
  release: Release;
  /** deploy/observability/alerts.yaml's groups. */
  alerts: RuleGroup[];
}

/** What a builder returns: a kubernetes-models object, which can validate itself. */
export interface Manifest {
  /** The file it is written to in the overlay's directory. */
  file: string;
  object: { validate(): void; toJSON(): unknown };
  /** Applied by an operator on demand, never by the overlay's kustomization. */
  onDemand?: true;
}

export function configMap(overlay: Overlay, version: string): ConfigMap {
  return new ConfigMap({
    metadata: {
      name: CONFIG_NAME,
      labels: { 'app.kubernetes.io/name': APP, 'app.kubernetes.io/version': version },
    },
    data: { ...overlay.settings },
  });
}

/**
 * Annotations of the pod template that change with the configuration: a changed ConfigMap (or the
 * Secret, when the release gives its digest) changes the template, which rolls the pods, as a
 * process reads its variables once, at start.
 */
export function configChecksums(overlay: Overlay, release: Release): Record<string, string> {
  const config = createHash('sha256')
    .update(JSON.stringify(configMap(overlay, '').data))
    .digest('hex');
  return {
    'checksum/config': config,
    ...(release.secretChecksum ? { 'checksum/secret': release.secretChecksum } : {}),
  };
}

export function deployment(overlay: Overlay, input: RenderInput, component: 'api' | 'worker'): Deployment {
  const { version, release } = input;
  return new Deployment({
    metadata: meta(NAMES[component], component, version),
    spec: {
      // No replica count: the autoscaler owns it, and an apply would otherwise reset it.
      selector: { matchLabels: selectorLabels(component) },
      // A new pod is ready before an old one stops, so capacity never dips during a rollout.
      strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1, maxUnavailable: 0 } },
      revisionHistoryLimit: 5,
      template: {
        metadata: { labels: labels(component, version), annotations: configChecksums(overlay, release) },
        spec: podSpec(overlay, component, [processContainer(overlay, release, component)], {
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

/**
 * One pod at a time may be evicted (a node drain): never all, and a single replica never blocks it.
 * A pod that is not ready (a store down, a crash loop) may always be evicted: it serves nothing, and
 * counting it against the budget would stall every drain for as long as the outage lasts.
 */
export function podDisruptionBudget(version: string, component: 'api' | 'worker'): PodDisruptionBudget {
  return new PodDisruptionBudget({
    metadata: meta(NAMES[component], component, version),
    spec: {
      maxUnavailable: 1,
      selector: { matchLabels: selectorLabels(component) },
      unhealthyPodEvictionPolicy: 'AlwaysAllow',
    },
  });
}

/** A Job that runs one CLI command to its end: a failed run is tried twice more (a store restarting). */
function cliJob(
  overlay: Overlay,
  { version, release }: RenderInput,
  component: 'install' | 'reindex',
  extra: { annotations?: Record<string, string>; ttlSecondsAfterFinished?: number },
): Job {
  return new Job({
    metadata: {
      ...meta(NAMES[component], component, version),
      ...(extra.annotations ? { annotations: extra.annotations } : {}),
    },
    spec: {
      backoffLimit: 2,
      // Migrations and a reindex of a large catalogue take minutes (UPGRADING.md): this bounds a stuck one.
      activeDeadlineSeconds: 3600,
      ...(extra.ttlSecondsAfterFinished === undefined
        ? {}
        : { ttlSecondsAfterFinished: extra.ttlSecondsAfterFinished }),
      template: {
        metadata: { labels: labels(component, version) },
        spec: podSpec(overlay, component, [cliJobContainer(overlay, release, component)], {
          restartPolicy: 'Never',
        }),
      },
    },
  });
}

/**
 * The install, run before the first rollout and before each one after it (`cli setup`): the
 * migrations, the bucket and the search alias, so that the first pods find everything they serve
 * from. Argo CD runs a PreSync hook before it applies anything else, Helm a pre-install/pre-upgrade
 * hook, and either deletes the previous run's Job first (a Job's pod template cannot be changed in
 * place). Every step is idempotent, so a Job run again by a plain `kubectl apply` does nothing harmful.
 */
export function installJob(overlay: Overlay, input: RenderInput): Job {
  return cliJob(overlay, input, 'install', {
    annotations: {
      'argocd.argoproj.io/hook': 'PreSync',
      'argocd.argoproj.io/hook-delete-policy': 'BeforeHookCreation',
      'helm.sh/hook': 'pre-install,pre-upgrade',
      'helm.sh/hook-delete-policy': 'before-hook-creation',
    },
  });
}

/**
 * A reindex (`cli reindex`), for a release whose notes ask for one: rendered beside the overlay
 * but not listed in its kustomization, so that only an operator applies it. Removed a day after it
 * ends, so that the next release's can be applied under the same name.
 */
export function reindexJob(overlay: Overlay, input: RenderInput): Job {
  return cliJob(overlay, input, 'reindex', { ttlSecondsAfterFinished: 86_400 });
}

/** Every object of the overlay, each with its file. */
export function manifests(overlay: Overlay, input: RenderInput): Manifest[] {
  const { version } = input;
  const dashboardIngress = queueDashboardIngress(overlay, version);
  return [
    { file: 'configmap.yaml', object: configMap(overlay, version) },
    { file: 'install-job.yaml', object: installJob(overlay, input) },
    { file: 'api-deployment.yaml', object: deployment(overlay, input, 'api') },
    {
      file: 'api-service.yaml',
      object: service(version, NAMES.api, 'api', { name: 'http', port: 80, targetPort: 'http' }),
    },
    {
      file: 'api-metrics-service.yaml',
      object: service(version, NAMES.apiMetrics, 'api', {
        name: 'metrics',
        port: Number(overlay.settings.METRICS_PORT),
        targetPort: 'metrics',
      }),
    },
    {
      // The dashboard is served by the API at /admin/queues; a Service of its own lets it be
      // reached (port-forward, its own ingress) without routing it through the public one.
      file: 'queue-dashboard-service.yaml',
      object: service(version, NAMES.dashboard, 'api', { name: 'http', port: 80, targetPort: 'http' }),
    },
    { file: 'api-ingress.yaml', object: publicIngress(overlay, version) },
    ...(dashboardIngress ? [{ file: 'queue-dashboard-ingress.yaml', object: dashboardIngress }] : []),
    { file: 'api-hpa.yaml', object: horizontalPodAutoscaler(overlay, version) },
    { file: 'api-pdb.yaml', object: podDisruptionBudget(version, 'api') },
    { file: 'api-networkpolicy.yaml', object: networkPolicy(overlay, 'api', version) },
    { file: 'api-podmonitor.yaml', object: podMonitor(overlay, 'api', version) },
    { file: 'worker-deployment.yaml', object: deployment(overlay, input, 'worker') },
    {
      file: 'worker-service.yaml',
      object: service(version, NAMES.worker, 'worker', {
        name: 'metrics',
        port: Number(overlay.settings.WORKER_PORT),
        targetPort: 'metrics',
      }),
    },
    { file: 'worker-pdb.yaml', object: podDisruptionBudget(version, 'worker') },
    { file: 'worker-networkpolicy.yaml', object: networkPolicy(overlay, 'worker', version) },
    { file: 'worker-podmonitor.yaml', object: podMonitor(overlay, 'worker', version) },
    { file: 'worker-scaledobject.yaml', object: scaledObject(overlay, version) },
    { file: 'prometheusrule.yaml', object: prometheusRule(overlay, input.alerts, input.release, version) },
    { file: 'reindex-job.yaml', object: reindexJob(overlay, input), onDemand: true },
  ];
}
