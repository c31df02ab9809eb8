/**
 * The autoscalers: the API on CPU (a HorizontalPodAutoscaler), the worker on its queue backlog (a
 * KEDA ScaledObject reading the workers' own count of it from Prometheus). docs/operations.md,
 * "Scaling"; deploy/README.md, "Worker autoscaling".
 */
import { ScaledObject } from '@kubernetes-models/keda/keda.sh/v1alpha1/ScaledObject';
import { HorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2/HorizontalPodAutoscaler';
import { SCRAPE_SECONDS } from './monitoring.ts';
import { meta, NAMES } from './names.ts';
import type { Overlay } from './overlays.ts';
import { backlogQuery } from './worker-backlog.ts';

/** What an autoscaler scales. */
const deploymentRef = (name: string) => ({ apiVersion: 'apps/v1', kind: 'Deployment', name });

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

/** How often KEDA asks Prometheus for the backlog. */
const POLLING_SECONDS = 15;

/**
 * From a pod's creation to its first job, on a node that has the image: scheduling, the
 * container's start and the worker's own (its queues open before it reports ready).
 */
const POD_START_SECONDS = 15;

/**
 * How long a backlog waits for a worker added for it, at the most: the workers' next count of it
 * (METRICS_REFRESH_INTERVAL_MS), Prometheus's next scrape, KEDA's next poll, and the pod's start.
 */
export function secondsToAddWorker(overlay: Overlay): number {
  const refreshSeconds = Number(overlay.settings.METRICS_REFRESH_INTERVAL_MS) / 1000;
  return refreshSeconds + SCRAPE_SECONDS + POLLING_SECONDS + POD_START_SECONDS;
}

/**
 * Jobs of backlog per worker: what one worker clears while another is being added. A backlog a
 * worker clears alone before a new one could help adds no pod; past that, each such share does.
 */
export function backlogPerWorker(overlay: Overlay): number {
  return Math.floor((overlay.worker.purgesPerSecond * secondsToAddWorker(overlay)) / 100) * 100;
}

/**
 * The worker scales on its backlog: KEDA asks Prometheus for the work a worker would start now
 * (worker-backlog.ts) and asks for one worker per `backlogPerWorker` jobs, between the overlay's
 * floor and ceiling.
 */
export function scaledObject(overlay: Overlay, version: string): ScaledObject {
  const target = String(backlogPerWorker(overlay));
  return new ScaledObject({
    metadata: meta(NAMES.worker, 'worker', version),
    spec: {
      scaleTargetRef: deploymentRef(NAMES.worker),
      minReplicaCount: overlay.worker.minReplicas,
      maxReplicaCount: overlay.worker.maxReplicas,
      pollingInterval: POLLING_SECONDS,
      // The backlog unreadable three polls in a row (Prometheus away): keep the workers running (a
      // failing scaler must not shrink a fleet working off a backlog), and at least
      // `fallbackReplicas` of them.
      fallback: {
        failureThreshold: 3,
        replicas: overlay.worker.fallbackReplicas,
        behavior: 'currentReplicasIfHigher',
      },
      advanced: {
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
      triggers: [
        {
          type: 'prometheus',
          name: 'backlog',
          metricType: 'AverageValue',
          metadata: {
            serverAddress: overlay.prometheus.serverAddress,
            query: backlogQuery(overlay.namespace),
            threshold: target,
            // No series yet (a worker just started, nothing scraped): no backlog, the floor.
            ignoreNullValues: 'true',
          },
        },
      ],
    },
  });
}
