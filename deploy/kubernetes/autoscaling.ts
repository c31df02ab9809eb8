/**
 * The autoscalers: the API on CPU (a HorizontalPodAutoscaler), the worker on its queue backlog (a
 * KEDA ScaledObject reading the workers' own count of it from Prometheus). docs/operations.md,
 * "Scaling"; deploy/README.md, "Worker autoscaling".
 */
import { ScaledObject } from '@kubernetes-models/keda/keda.sh/v1alpha1/ScaledObject';
import { HorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2/HorizontalPodAutoscaler';
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

/**
 * The worker scales on its backlog: KEDA asks Prometheus for the work a worker would start now
 * (worker-backlog.ts) and asks for one worker per `backlogPerWorker` jobs, between the overlay's
 * floor and ceiling.
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
