/**
 * The autoscalers: the API on CPU (a HorizontalPodAutoscaler), the worker on its queue backlog (a
 * KEDA ScaledObject reading Redis with the operator's Secret). docs/operations.md, "Scaling".
 */
import { ScaledObject } from '@kubernetes-models/keda/keda.sh/v1alpha1/ScaledObject';
import { TriggerAuthentication } from '@kubernetes-models/keda/keda.sh/v1alpha1/TriggerAuthentication';
import { HorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2/HorizontalPodAutoscaler';
import { meta, NAMES } from './names.ts';
import type { Overlay } from './overlays.ts';
import { REDIS_PARTS, SECRET_NAME } from './secrets.ts';
import { BACKLOG_FORMULA, backlogKeys } from './worker-backlog.ts';

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
      // Redis unreadable three polls in a row: keep the workers running (a failing scaler must not
      // shrink a fleet working off a backlog), and at least `fallbackReplicas` of them.
      fallback: {
        failureThreshold: 3,
        replicas: overlay.worker.fallbackReplicas,
        behavior: 'currentReplicasIfHigher',
      },
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
      triggers: backlogKeys(overlay.redisCluster).map(({ trigger, key }) => ({
        // KEDA's scaler for a Redis Cluster finds the node of each key's slot itself.
        type: overlay.redisCluster ? 'redis-cluster' : 'redis',
        name: trigger,
        metadata: {
          listName: key,
          listLength: target,
          enableTLS: String(overlay.redisTls),
          // BullMQ's database: REDIS_URL names none (pods.ts), so 0; a cluster has no other.
          ...(overlay.redisCluster ? {} : { databaseIndex: '0' }),
        },
        authenticationRef: { name: NAMES.redisAuth },
      })),
    },
  });
}

/** KEDA reaches Redis with the Secret's own keys: the same server and password as the processes. */
export function triggerAuthentication(overlay: Overlay, version: string): TriggerAuthentication {
  return new TriggerAuthentication({
    metadata: meta(NAMES.redisAuth, 'worker', version),
    spec: {
      secretTargetRef: [
        // The cluster's scaler takes seed nodes (`addresses`); one, the address the pods use, is enough.
        {
          parameter: overlay.redisCluster ? 'addresses' : 'address',
          name: SECRET_NAME,
          key: REDIS_PARTS.address,
        },
        { parameter: 'password', name: SECRET_NAME, key: REDIS_PARTS.password },
      ],
    },
  });
}
