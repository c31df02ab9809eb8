/**
 * The environments the manifests are rendered for (docs/operations.md). Each number that shapes a
 * pod or a scaler is written here once, with its reason; manifests.ts only assembles objects.
 */
import type { AppConfig } from '../../libs/shared/src/config/config.schema.ts';
import { HEAP_RULE } from '../../libs/shared/src/config/node-heap.ts';

/** Requests and limits of one container, in Kubernetes quantities. */
export interface Resources {
  requests: { cpu: string; memory: string };
  limits: { cpu: string; memory: string };
}

/** Settings the ConfigMap gives every process: only variables of the configuration schema. */
export type Settings = Partial<Record<keyof AppConfig, string>> &
  Required<
    Pick<
      Record<keyof AppConfig, string>,
      | 'NODE_ENV'
      | 'PORT'
      | 'METRICS_PORT'
      | 'WORKER_PORT'
      | 'HTTP_REQUEST_TIMEOUT_MS'
      | 'SHUTDOWN_TIMEOUT_MS'
      | 'METRICS_REFRESH_INTERVAL_MS'
    >
  >;

export interface Overlay {
  name: 'production' | 'production-redis-cluster' | 'local';
  /** The image's name; the release pins it (release.ts), or `dev` locally. */
  image: string;
  /** `dev`, an image built on the machine and loaded into the cluster's nodes, never pulled. */
  devImage: boolean;
  settings: Settings;
  api: { minReplicas: number; maxReplicas: number; cpuUtilization: number; resources: Resources };
  worker: {
    minReplicas: number;
    maxReplicas: number;
    /**
     * Jobs a second one worker clears at the overlay's `WORKER_CONCURRENCY`, the slowest of its
     * bulk queues (a purge): the autoscaler's target follows from it (worker-backlog.ts).
     */
    purgesPerSecond: number;
    /** Workers kept, at least, while KEDA cannot read the backlog (its `fallback`). */
    fallbackReplicas: number;
    resources: Resources;
  };
  /** The one-off CLI Jobs: the install before each rollout, a reindex when a release asks for one. */
  jobs: { resources: Resources };
  /** Redis over TLS: `rediss://` for the processes. */
  redisTls: boolean;
  /**
   * REDIS_ADDRESS is a node of a Redis Cluster (or a Service in front of its nodes): the processes
   * run with REDIS_CLUSTER.
   */
  redisCluster: boolean;
  /** MySQL's `max_connections` the ceilings must fit under (151 is MySQL's default). */
  mysqlMaxConnections: number;
  /** Connections kept for people and tools (a mysql client, an exporter, a backup). */
  mysqlReservedConnections: number;
  /**
   * Spread each Deployment's pods over zones and over nodes, so that losing a zone or a node loses
   * a share, not all.
   */
  spreadOverNodes: boolean;
  /**
   * The namespace Prometheus scrapes from: the only one the network policies let reach the ports
   * for operators (the API's metrics, the worker's health and metrics).
   */
  monitoringNamespace: string;
  /**
   * Labels the Prometheus Operator's `podMonitorSelector` and `ruleSelector` look for on the
   * PodMonitors and the PrometheusRule (kube-prometheus-stack: `release: <its release name>`).
   */
  monitoringLabels: Record<string, string>;
  /**
   * The nodes' addresses (CIDRs), let reach the probed ports: for network plugins that apply
   * policies to the kubelet's own traffic. Most (Calico, Cilium) always admit it; empty then.
   */
  nodeCidrs: readonly string[];
  /** The public Ingress, and the queue dashboard's, apart and only when given. */
  ingress: {
    className: string;
    /** Where the ingress controller's pods run: the only namespace the API's port admits. */
    controllerNamespace: string;
    /** Undefined: every host the controller serves. */
    host?: string;
    /** The TLS certificate's Secret for `host` (cert-manager or the operator creates it). */
    tlsSecret?: string;
    /**
     * The queue dashboard (/admin/queues: Bull Board, behind its own basic auth) on an ingress of
     * its own, e.g. an internal class; off unless given.
     */
    queueDashboard?: { className: string; controllerNamespace: string; host: string; tlsSecret?: string };
  };
  /**
   * The namespace the overlay is deployed to (the kustomization's `namespace` or `kubectl -n`):
   * the worker autoscaler's query selects that namespace's workers.
   */
  namespace: string;
  /** The Prometheus KEDA asks for the worker backlog (its HTTP API, from KEDA's namespace). */
  prometheus: { serverAddress: string };
  /** A PriorityClass the pods run at (created by the cluster's operator); undefined: the default. */
  priorityClassName?: string;
}

/**
 * The worker and the CLI cap V8's old generation (HEAP_RULE); the young generation takes three
 * semi-spaces at most. The rest of a process (code, native buffers of the MySQL, Redis, HTTP and
 * S3 clients) is given this much room, so that a heap that outgrows its cap stops the process with
 * V8's own message (exit 134, job handed back) before the kernel's OOM killer would (exit 137,
 * nothing said): the limit is the heap's ceiling plus this.
 */
const NATIVE_HEADROOM_MIB = 208;
const cappedHeapLimitMiB =
  HEAP_RULE.worker['max-old-space-size'] + 3 * HEAP_RULE.worker['max-semi-space-size'] + NATIVE_HEADROOM_MIB;

const SETTINGS: Settings = {
  NODE_ENV: 'production',
  LOG_LEVEL: 'info',
  PORT: '3000',
  METRICS_PORT: '9464',
  WORKER_PORT: '3001',
  // The API's drain ends with its slowest request, which this bounds (docs/running.md, "Shutdown").
  HTTP_REQUEST_TIMEOUT_MS: '30000',
  // The worker's drain: active jobs get this long, then go back to the queue.
  SHUTDOWN_TIMEOUT_MS: '30000',
  // The concurrency the bench measures a worker's purges at (docs/benchmarks.md, "Purge end to
  // end"), so that `purgesPerSecond` below holds for these workers.
  WORKER_CONCURRENCY: '8',
  // The workers' count of their backlog is this old at most when Prometheus scrapes it (autoscaling.ts).
  METRICS_REFRESH_INTERVAL_MS: '15000',
  // Every worker applies it to the live index at start: one value for all (docs/scaling.md).
  ELASTICSEARCH_REPLICAS: '1',
  // Tracing is the operator's to turn on with their collector's URL (docs/tracing.md): empty counts
  // as unset, so the processes load no tracing until then.
  OTEL_EXPORTER_OTLP_ENDPOINT: '',
};

export const PRODUCTION: Overlay = {
  name: 'production',
  image: 'video-deletion-search',
  devImage: false,
  settings: SETTINGS,
  api: {
    // Two, so that a rollout, a node drain or a crash never leaves the API with no ready pod.
    minReplicas: 2,
    // Elasticsearch's cores, not the API's, limit searches (4.6 ms of its CPU per search against
    // the API's 1.1, docs/scaling.md): four API cores feed about 16 of Elasticsearch's.
    maxReplicas: 4,
    // Of the request: scale out at 350m per pod on average, before one core is saturated.
    cpuUtilization: 70,
    resources: {
      // 235 MB RSS under load plus the item cache (SEARCH_ITEM_CACHE_MB, 32) (docs/scaling.md).
      requests: { cpu: '500m', memory: '320Mi' },
      // One core: a process runs JavaScript on one thread. Memory: twice the load's RSS.
      limits: { cpu: '1', memory: '512Mi' },
    },
  },
  worker: {
    // Never none: the worker also runs the sweeps and schedules that re-enqueue what Redis lost.
    minReplicas: 1,
    // MySQL sets it: each process holds up to 10 connections, and both ceilings, one surge pod
    // of each rollout and the install Job must fit under max_connections (the spec checks it).
    // At 7 workers, 112 jobs at once (WORKER_CONCURRENCY on the deletion and index queues) write
    // to Elasticsearch, far under its write queue (docs/operations.md, "Scaling").
    maxReplicas: 7,
    // The bench's "Purge end to end" worker rate, rounded down (a spec keeps it within 10 % of
    // docs/benchmarks.json): replace it with your own cluster's rate once measured.
    purgesPerSecond: 230,
    // Two: the sweeps and one more, enough to keep deletions moving while the scaler is blind.
    fallbackReplicas: 2,
    resources: {
      // Peak RSS 215 MB (a worker reconciling a million rows), 273 MB (a reindex).
      requests: { cpu: '250m', memory: '320Mi' },
      limits: { cpu: '1', memory: `${cappedHeapLimitMiB}Mi` },
    },
  },
  jobs: {
    // A reindex peaks where a worker's reindex does: the worker's heap rule and limit.
    resources: {
      requests: { cpu: '100m', memory: '256Mi' },
      limits: { cpu: '1', memory: `${cappedHeapLimitMiB}Mi` },
    },
  },
  redisTls: false,
  redisCluster: false,
  mysqlMaxConnections: 151,
  mysqlReservedConnections: 10,
  spreadOverNodes: true,
  // kube-prometheus-stack's usual home, and its chart's default release name.
  monitoringNamespace: 'monitoring',
  monitoringLabels: { release: 'kube-prometheus-stack' },
  nodeCidrs: [],
  // ingress-nginx's chart and namespace.
  ingress: { className: 'nginx', controllerNamespace: 'ingress-nginx' },
  namespace: 'video-search',
  // kube-prometheus-stack's Prometheus, under its chart's default release name.
  prometheus: { serverAddress: 'http://kube-prometheus-stack-prometheus.monitoring.svc:9090' },
};

/** A pod of the local overlay: a fraction of a core reserved, the same limits as production's. */
const small = (resources: Resources): Resources => ({
  requests: { cpu: '100m', memory: '256Mi' },
  limits: resources.limits,
});

/** A cluster on one machine (kind, minikube, k3d) with an image built there: small and single. */
export const LOCAL: Overlay = {
  ...PRODUCTION,
  name: 'local',
  devImage: true,
  // One Elasticsearch node locally: a replica would have nowhere to go.
  settings: { ...SETTINGS, LOG_LEVEL: 'debug', ELASTICSEARCH_REPLICAS: '0' },
  api: { ...PRODUCTION.api, minReplicas: 1, maxReplicas: 2, resources: small(PRODUCTION.api.resources) },
  worker: { ...PRODUCTION.worker, maxReplicas: 2, resources: small(PRODUCTION.worker.resources) },
  spreadOverNodes: false,
};

/** Production on a Redis Cluster (docs/operations.md, "Redis Cluster"): the one difference is how Redis is reached. */
export const PRODUCTION_REDIS_CLUSTER: Overlay = {
  ...PRODUCTION,
  name: 'production-redis-cluster',
  settings: { ...SETTINGS, REDIS_CLUSTER: 'true' },
  redisCluster: true,
};

export const OVERLAYS: readonly Overlay[] = [PRODUCTION, PRODUCTION_REDIS_CLUSTER, LOCAL];
