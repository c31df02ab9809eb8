import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { ScaledObject } from '@kubernetes-models/keda/keda.sh/v1alpha1/ScaledObject';
import { Deployment } from 'kubernetes-models/apps/v1/Deployment';
import { HorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2/HorizontalPodAutoscaler';
import { Job } from 'kubernetes-models/batch/v1/Job';
import { Ingress } from 'kubernetes-models/networking.k8s.io/v1/Ingress';
import { NetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1/NetworkPolicy';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1/PodDisruptionBudget';
import { ConfigMap } from 'kubernetes-models/v1/ConfigMap';
import type { IContainer } from 'kubernetes-models/v1/Container';
import { Service } from 'kubernetes-models/v1/Service';
import { loadConfig } from '@app/shared/config/load-config';
import { HEAP_RULE } from '@app/shared/config/node-heap';
import { dataSourceOptions } from '@app/shared/data-source';
import { QUEUES } from '@app/shared/queue/queues';
import { workerScaler } from '@test/support/keda';
import { parsePromql } from '@test/support/observability';
import { DASHBOARD_PATH } from '@app/api/admin/dashboard-path';
import { backlogPerWorker, secondsToAddWorker } from './autoscaling.ts';
import { alertGroups, PodMonitor, PrometheusRule } from './monitoring.ts';
import { QUEUE_DASHBOARD_PATH } from './network.ts';
import { OVERLAYS } from './overlays.ts';
import { DEFAULT_RUNBOOK_BASE_URL, UNPINNED_DIGEST } from './release.ts';
import { ALERTS_FILE } from './render.ts';
import { readOnDemand, readOverlay, type RenderedObject } from './rendered.ts';
import { SECRET_NAME } from './secrets.ts';

const ROOT = resolve(__dirname, '../..');

/** Every kind the manifests may hold, with the model that validates it: an unknown kind fails. */
const MODELS = [
  Deployment,
  Service,
  HorizontalPodAutoscaler,
  PodDisruptionBudget,
  Job,
  ConfigMap,
  ScaledObject,
  NetworkPolicy,
  Ingress,
  PodMonitor,
  PrometheusRule,
];

const MiB = (quantity: string) => {
  const match = /^(\d+)(Mi|Gi)$/.exec(quantity);
  if (!match) throw new Error(`not a MiB or GiB quantity: ${quantity}`);
  return Number(match[1]) * (match[2] === 'Gi' ? 1024 : 1);
};

const matches = (selector: Record<string, string>, labels: Record<string, string> = {}) =>
  Object.entries(selector).every(([name, value]) => labels[name] === value);

describe.each(OVERLAYS.map((overlay) => [overlay.name, overlay] as const))(
  'the %s manifests',
  (name, overlay) => {
    const objects: RenderedObject[] = readOverlay(ROOT, { name });
    const deployments = objects.filter(Deployment.is);
    const services = objects.filter(Service.is);
    const jobs = objects.filter(Job.is);
    const configMaps = objects.filter(ConfigMap.is);
    const settings = configMaps[0]?.data ?? {};
    const containersOf = (deployment: (typeof deployments)[number]) =>
      deployment.spec!.template.spec!.containers;
    const allPods = [...deployments, ...jobs].map((owner) => owner.spec!.template);

    it('are each valid against the Kubernetes (or KEDA) schema of their kind', () => {
      for (const object of objects) {
        const Model = MODELS.find((model) => model.is(object));
        expect({ kind: `${object.apiVersion} ${object.kind}`, known: Model !== undefined }).toEqual({
          kind: `${object.apiVersion} ${object.kind}`,
          known: true,
        });
        expect(() => new Model!(object as never).validate()).not.toThrow();
      }
    });

    it('would be refused by that validation with a field of the wrong type', () => {
      const broken = structuredClone(deployments[0]!);
      containersOf(broken)[0]!.ports![0]!.containerPort = 'http' as unknown as number;
      expect(() => new Deployment(broken).validate()).toThrow(/containerPort must be integer/);
    });

    it('hold one API and one worker Deployment, the install Job and one ConfigMap', () => {
      expect(deployments.map((d) => d.metadata!.name).sort()).toEqual([
        'video-search-api',
        'video-search-worker',
      ]);
      expect(jobs).toHaveLength(1);
      expect(configMaps).toHaveLength(1);
    });

    it('point every Service at the pods of exactly one Deployment, on a port those pods name', () => {
      for (const service of services) {
        const selector = service.spec!.selector!;
        const selected = deployments.filter((d) => matches(selector, d.spec!.template.metadata!.labels));
        expect({ service: service.metadata!.name, selects: selected.length }).toEqual({
          service: service.metadata!.name,
          selects: 1,
        });
        expect(jobs.some((job) => matches(selector, job.spec!.template.metadata!.labels))).toBe(false);
        const named = containersOf(selected[0]!).flatMap((c) => (c.ports ?? []).map((p) => p.name));
        for (const port of service.spec!.ports!) expect(named).toContain(port.targetPort);
      }
    });

    it('let the public port be reached from the ingress controllers only, the ports for operators only from the monitoring namespace', () => {
      const policies = objects.filter(NetworkPolicy.is);
      const fromNamespaces = (
        from: { namespaceSelector?: { matchLabels?: Record<string, string> } }[] = [],
      ) => from.map((peer) => peer.namespaceSelector?.matchLabels?.['kubernetes.io/metadata.name']);
      for (const deployment of deployments) {
        const podLabels = deployment.spec!.template.metadata!.labels ?? {};
        const governing = policies.filter((policy) =>
          matches(policy.spec!.podSelector?.matchLabels ?? {}, podLabels),
        );
        expect({ deployment: deployment.metadata!.name, policies: governing.length }).toEqual({
          deployment: deployment.metadata!.name,
          policies: 1,
        });
        const rules = governing[0]!.spec!.ingress!;
        const container = containersOf(deployment)[0]!;
        // Every port the container names has exactly one rule, and no rule admits everyone.
        expect(rules.flatMap((rule) => rule.ports!.map((p) => p.port)).sort()).toEqual(
          container.ports!.map((p) => p.name).sort(),
        );
        for (const rule of rules) {
          expect(rule.from?.length).toBeGreaterThan(0);
          const port = container.ports!.find((p) => p.name === rule.ports![0]!.port)!;
          const expected =
            port.containerPort === Number(settings.PORT)
              ? [overlay.ingress.controllerNamespace]
              : [overlay.monitoringNamespace];
          expect({ port: port.name, from: fromNamespaces(rule.from).filter(Boolean) }).toEqual({
            port: port.name,
            from: expected,
          });
          // Nodes (the kubelet's probes) by address, only on the probed port, and only when configured.
          const blocks = rule.from!.flatMap((peer) => (peer.ipBlock ? [peer.ipBlock.cidr] : []));
          const probed = container.readinessProbe!.httpGet!.port === port.name;
          expect(blocks).toEqual(probed ? [...overlay.nodeCidrs] : []);
        }
      }
    });

    it('publish /api and /docs on the public Ingress, never the probes, the metrics or the queue dashboard', () => {
      const ingresses = objects.filter(Ingress.is);
      const api = ingresses.find((ingress) => ingress.metadata!.name === 'video-search-api')!;
      const paths = api.spec!.rules!.flatMap((rule) => rule.http!.paths);
      expect(paths.map((path) => path.path).sort()).toEqual(['/api', '/docs', '/docs-json']);
      for (const path of paths) {
        expect(path.backend.service).toEqual({ name: 'video-search-api', port: { name: 'http' } });
      }
      expect(api.spec!.ingressClassName).toBe(overlay.ingress.className);
      // The queue dashboard is off by default: no Ingress routes to it.
      expect(QUEUE_DASHBOARD_PATH).toBe(DASHBOARD_PATH);
      expect(overlay.ingress.queueDashboard).toBeUndefined();
      expect(
        ingresses.flatMap((i) => i.spec!.rules!.flatMap((r) => r.http!.paths.map((p) => p.path))),
      ).not.toContain(DASHBOARD_PATH);
    });

    it('scrape each process with a PodMonitor on its port named metrics, as the job the rules select', () => {
      const monitors = objects.filter(PodMonitor.is);
      expect(monitors.map((monitor) => monitor.metadata.name).sort()).toEqual([
        'video-search-api',
        'video-search-worker',
      ]);
      for (const monitor of monitors) {
        const selected = deployments.filter((d) =>
          matches(monitor.spec.selector.matchLabels, d.spec!.template.metadata!.labels),
        );
        expect(selected.map((d) => d.metadata!.name)).toEqual([monitor.metadata.name]);
        const [endpoint] = monitor.spec.podMetricsEndpoints;
        expect(endpoint!.port).toBe('metrics');
        expect(containersOf(selected[0]!)[0]!.ports!.map((p) => p.name)).toContain('metrics');
        expect(endpoint!.relabelings).toContainEqual({
          action: 'replace',
          targetLabel: 'job',
          replacement: monitor.metadata.name,
        });
        expect(monitor.metadata.labels).toMatchObject(overlay.monitoringLabels);
      }
    });

    it('carry alerts.yaml as a PrometheusRule, every runbook an absolute address of the repository', () => {
      const [rule, ...more] = objects.filter(PrometheusRule.is);
      expect(more).toEqual([]);
      const groups = alertGroups(readFileSync(resolve(ROOT, ALERTS_FILE), 'utf8'));
      expect(rule!.spec.groups.map((group) => group.rules.map((r) => r.expr))).toEqual(
        groups.map((group) => group.rules.map((r) => r.expr)),
      );
      const runbooks = rule!.spec.groups.flatMap((group) =>
        group.rules.map((r) => r.annotations!.runbook_url!),
      );
      const relative = groups.flatMap((group) => group.rules.map((r) => r.annotations!.runbook_url!));
      expect(runbooks).toEqual(relative.map((path) => `${DEFAULT_RUNBOOK_BASE_URL}${path}`));
      expect(rule!.metadata.labels).toMatchObject(overlay.monitoringLabels);
    });

    it('pin the image: a digest (or a commit) pulled if not present, or the local image never pulled', () => {
      for (const container of allPods.flatMap((pod) => pod.spec!.containers)) {
        if (overlay.devImage) {
          expect([container.image, container.imagePullPolicy]).toEqual([`${overlay.image}:dev`, 'Never']);
        } else {
          expect([container.image, container.imagePullPolicy]).toEqual([
            `${overlay.image}@${UNPINNED_DIGEST}`,
            'IfNotPresent',
          ]);
        }
      }
    });

    it('roll the pods when the ConfigMap changes: its checksum is on the pod templates', () => {
      const checksum = createHash('sha256').update(JSON.stringify(settings)).digest('hex');
      for (const deployment of deployments) {
        expect(deployment.spec!.template.metadata!.annotations).toEqual({ 'checksum/config': checksum });
      }
    });

    it('spread the pods over zones and then nodes, where the overlay asks for it', () => {
      for (const deployment of deployments) {
        const keys = (deployment.spec!.template.spec!.topologySpreadConstraints ?? []).map(
          (c) => c.topologyKey,
        );
        expect(keys).toEqual(
          overlay.spreadOverNodes ? ['topology.kubernetes.io/zone', 'kubernetes.io/hostname'] : [],
        );
        expect(deployment.spec!.template.spec!.priorityClassName).toBe(overlay.priorityClassName);
      }
    });

    it('probe each process on a port its container names, at the routes the processes serve', () => {
      for (const container of deployments.flatMap(containersOf)) {
        const named = (container.ports ?? []).map((p) => p.name);
        const probes = [container.startupProbe, container.livenessProbe, container.readinessProbe];
        for (const probe of probes) expect(named).toContain(probe!.httpGet!.port);
        expect(container.livenessProbe!.httpGet!.path).toBe('/health/live');
        expect(container.readinessProbe!.httpGet!.path).toBe('/health/ready');
      }
    });

    it('give each process the ports of its settings: the API PORT and METRICS_PORT, the worker WORKER_PORT', () => {
      const ports = (component: string) =>
        containersOf(
          deployments.find((d) => d.metadata!.name === `video-search-${component}`)!,
        )[0]!.ports!.map((p) => p.containerPort);
      expect(ports('api')).toEqual([Number(settings.PORT), Number(settings.METRICS_PORT)]);
      expect(ports('worker')).toEqual([Number(settings.WORKER_PORT)]);
      // The worker serves health and metrics on its one port, named like the API's metrics port.
      const names = (component: string) =>
        containersOf(
          deployments.find((d) => d.metadata!.name === `video-search-${component}`)!,
        )[0]!.ports!.map((p) => p.name);
      expect([names('api'), names('worker')]).toEqual([['http', 'metrics'], ['metrics']]);
      // The queue dashboard is served by the API on its public port, at /admin/queues.
      const dashboard = services.find((s) => s.metadata!.name === 'video-search-queue-dashboard')!;
      expect(dashboard.spec!.ports![0]!.targetPort).toBe('http');
    });

    it('let each pod outlast its drain: the grace period exceeds the pause before SIGTERM plus the drain', () => {
      const defaults = loadConfig({});
      const ms = (setting: 'HTTP_REQUEST_TIMEOUT_MS' | 'SHUTDOWN_TIMEOUT_MS') =>
        Number(settings[setting] ?? defaults[setting]);
      // The API answers its requests in flight (each within HTTP_REQUEST_TIMEOUT_MS); the worker
      // gives its jobs SHUTDOWN_TIMEOUT_MS (docs/running.md, "Shutdown").
      const drains = {
        'video-search-api': ms('HTTP_REQUEST_TIMEOUT_MS'),
        'video-search-worker': ms('SHUTDOWN_TIMEOUT_MS'),
      };
      for (const deployment of deployments) {
        const pod = deployment.spec!.template.spec!;
        const preStop = pod.containers[0]!.lifecycle?.preStop?.sleep?.seconds ?? 0;
        const drainSeconds = drains[deployment.metadata!.name as keyof typeof drains] / 1000;
        expect(pod.terminationGracePeriodSeconds).toBeGreaterThan(preStop + drainSeconds);
      }
    });

    it('give each Deployment one autoscaler and one disruption budget, and replace pods before removing them', () => {
      const hpas = objects.filter(HorizontalPodAutoscaler.is);
      const scaled = objects.filter(ScaledObject.is);
      const budgets = objects.filter(PodDisruptionBudget.is);
      const targets = [...hpas, ...scaled].map((a) => a.spec.scaleTargetRef.name).sort();
      expect(targets).toEqual(deployments.map((d) => d.metadata!.name).sort());
      for (const deployment of deployments) {
        const labels = deployment.spec!.template.metadata!.labels;
        expect(budgets.filter((b) => matches(b.spec!.selector!.matchLabels!, labels))).toHaveLength(1);
        // A pod that is not ready never holds up a node drain (an outage would stall every drain).
        for (const budget of budgets) expect(budget.spec!.unhealthyPodEvictionPolicy).toBe('AlwaysAllow');
        expect(deployment.spec!.replicas).toBeUndefined();
        expect(deployment.spec!.strategy!.rollingUpdate!.maxUnavailable).toBe(0);
      }
      expect(hpas[0]!.spec.metrics![0]!.resource!.name).toBe('cpu');
      expect(hpas[0]!.spec.scaleTargetRef.name).toBe('video-search-api');
    });

    it('configure every process from the ConfigMap and the Secret the operator creates', () => {
      for (const pod of allPods) {
        for (const container of pod.spec!.containers) {
          for (const source of container.envFrom ?? []) {
            if (source.configMapRef) expect(source.configMapRef.name).toBe(configMaps[0]!.metadata!.name);
            else expect(source.secretRef?.name).toBe(SECRET_NAME);
          }
        }
      }
      // No secret value in the repository: no Secret object, no literal credential in a variable.
      expect(objects.filter((o) => o.kind === 'Secret')).toEqual([]);
    });

    it("name each process's service and the pod's Kubernetes attributes for its spans, and leave the collector's endpoint empty for the operator", () => {
      expect(settings).toHaveProperty('OTEL_EXPORTER_OTLP_ENDPOINT', '');
      for (const deployment of deployments) {
        const env = containersOf(deployment)[0]!.env ?? [];
        const value = (variable: string) => env.find((entry) => entry.name === variable);
        expect(value('OTEL_SERVICE_NAME')?.value).toBe(deployment.metadata!.name);
        expect(
          ['K8S_NAMESPACE_NAME', 'K8S_POD_NAME', 'K8S_NODE_NAME'].map(
            (variable) => value(variable)?.valueFrom?.fieldRef?.fieldPath,
          ),
        ).toEqual(['metadata.namespace', 'metadata.name', 'spec.nodeName']);
        expect(value('OTEL_RESOURCE_ATTRIBUTES')?.value).toBe(
          'k8s.namespace.name=$(K8S_NAMESPACE_NAME),k8s.pod.name=$(K8S_POD_NAME),k8s.node.name=$(K8S_NODE_NAME)',
        );
        // The kubelet expands $(VAR) only from variables defined before the one that names them.
        const names = env.map((entry) => entry.name);
        for (const variable of ['K8S_NAMESPACE_NAME', 'K8S_POD_NAME', 'K8S_NODE_NAME'])
          expect(names.indexOf(variable)).toBeLessThan(names.indexOf('OTEL_RESOURCE_ATTRIBUTES'));
      }
    });

    it('install before a rollout, under Argo CD and Helm alike, from the Secret and settings of its own', () => {
      const job = jobs[0]!;
      expect(job.metadata!.name).toBe('video-search-install');
      expect(job.metadata!.annotations).toMatchObject({
        'argocd.argoproj.io/hook': 'PreSync',
        'helm.sh/hook': 'pre-install,pre-upgrade',
      });
      const container = job.spec!.template.spec!.containers[0]!;
      // Migrations, the bucket and the search alias: what the first pods need to serve.
      expect(container.command).toEqual(['node', 'dist/apps/worker/src/cli.js', 'setup']);
      // A pre-install hook runs before the release's ConfigMap exists: it carries the settings itself.
      expect(container.envFrom).toEqual([{ secretRef: { name: SECRET_NAME } }]);
      const env = Object.fromEntries((container.env ?? []).map(({ name, value }) => [name, value]));
      expect(env).toMatchObject(settings);
      expect(job.spec!.template.spec!.restartPolicy).toBe('Never');
    });

    it('render a reindex Job the kustomization leaves to operators', () => {
      const onDemand = readOnDemand(ROOT, { name });
      expect([...onDemand.keys()]).toEqual(['reindex-job.yaml']);
      const job = onDemand.get('reindex-job.yaml')!;
      expect(Job.is(job)).toBe(true);
      if (!Job.is(job)) return;
      expect(() => new Job(job).validate()).not.toThrow();
      expect(job.metadata!.annotations).toBeUndefined();
      expect(job.spec!.ttlSecondsAfterFinished).toBeGreaterThan(0);
      const container = job.spec!.template.spec!.containers[0]!;
      expect(container.command).toEqual(['node', 'dist/apps/worker/src/cli.js', 'reindex', '--no-progress']);
      expect(container.envFrom).toEqual([
        { configMapRef: { name: configMaps[0]!.metadata!.name } },
        { secretRef: { name: SECRET_NAME } },
      ]);
    });

    it('run every container as non-root, read-only, without privilege escalation', () => {
      const hardened = (container: IContainer) => ({
        allowPrivilegeEscalation: container.securityContext?.allowPrivilegeEscalation,
        readOnlyRootFilesystem: container.securityContext?.readOnlyRootFilesystem,
        drops: container.securityContext?.capabilities?.drop,
        privileged: container.securityContext?.privileged ?? false,
      });
      for (const pod of allPods) {
        expect(pod.spec!.securityContext!.runAsNonRoot).toBe(true);
        expect(pod.spec!.securityContext!.runAsUser).toBeGreaterThan(0);
        expect(pod.spec!.automountServiceAccountToken).toBe(false);
        for (const container of pod.spec!.containers) {
          expect(hardened(container)).toEqual({
            allowPrivilegeEscalation: false,
            readOnlyRootFilesystem: true,
            drops: ['ALL'],
            privileged: false,
          });
        }
      }
    });

    it('leave the worker and the CLI room above their heap cap, so V8 stops them before the kernel does', () => {
      const rule = HEAP_RULE.worker;
      const heapCeilingMiB = rule['max-old-space-size'] + 3 * rule['max-semi-space-size'];
      const capped = [deployments.find((d) => d.metadata!.name === 'video-search-worker')!, jobs[0]!];
      for (const owner of capped) {
        const { requests, limits } = owner.spec!.template.spec!.containers[0]!.resources!;
        expect(MiB(String(limits!.memory))).toBeGreaterThan(heapCeilingMiB + 128);
        expect(MiB(String(requests!.memory))).toBeLessThanOrEqual(MiB(String(limits!.memory)));
      }
    });

    it('keep both ceilings, each rollout surge and the migration within MySQL connections', () => {
      const { poolSize } = dataSourceOptions({ DATABASE_URL: 'mysql://u@h/db' }) as { poolSize: number };
      const hpa = objects.filter(HorizontalPodAutoscaler.is)[0]!.spec;
      const scaler = objects.filter(ScaledObject.is)[0]!.spec;
      const surge = (component: string) =>
        Number(
          deployments.find((d) => d.metadata!.name === `video-search-${component}`)!.spec!.strategy!
            .rollingUpdate!.maxSurge,
        );
      const processes =
        hpa.maxReplicas + surge('api') + scaler.maxReplicaCount! + surge('worker') + jobs.length;
      expect(processes * poolSize).toBeLessThanOrEqual(
        overlay.mysqlMaxConnections - overlay.mysqlReservedConnections,
      );
    });

    it('scale the worker on the work it would start now in the deletion and index queues, from a floor of one', () => {
      const scaler = workerScaler(name);
      // The workers' own count (paused queues and jobs delayed for later left out), of this
      // namespace's workers, summed over the bulk queues.
      expect(scaler.metric).toBe('queue_startable_jobs');
      expect(scaler.queues.sort()).toEqual([QUEUES.deletion, QUEUES.index].sort());
      const { selectors, aggregations } = parsePromql(scaler.query);
      expect(selectors[0]!.matchers).toEqual(
        expect.arrayContaining([
          { label: 'namespace', op: '=', value: overlay.namespace },
          { label: 'job', op: '=', value: 'video-search-worker' },
        ]),
      );
      // Every worker exports the same count: their max per queue, then the queues' sum.
      expect(aggregations).toEqual([{ op: 'sum' }, { op: 'max', by: ['queue'] }]);
      expect(scaler.min).toBe(1);
      // One worker per what a worker clears while another is being added: a backlog one worker
      // clears before a new one could help adds no pod.
      expect(scaler.target).toBe(backlogPerWorker(overlay));
      expect(scaler.target).toBeGreaterThanOrEqual(
        overlay.worker.purgesPerSecond * secondsToAddWorker(overlay) - 100,
      );
      const spec = objects.filter(ScaledObject.is)[0]!.spec;
      expect(spec.triggers[0]!.metadata.serverAddress).toBe(overlay.prometheus.serverAddress);
      // A scaler that cannot read the backlog keeps the workers it has, and at least the fallback's.
      expect(spec.fallback).toEqual({
        failureThreshold: 3,
        replicas: overlay.worker.fallbackReplicas,
        behavior: 'currentReplicasIfHigher',
      });
      expect(spec.fallback!.replicas).toBeLessThanOrEqual(scaler.max);
      // The metric is one the processes register, which the PodMonitor scrapes as that job.
      const monitor = objects.filter(PodMonitor.is).find((m) => m.metadata.name === 'video-search-worker')!;
      expect(monitor.spec.podMetricsEndpoints[0]!.relabelings[0]!.replacement).toBe('video-search-worker');
    });
  },
);

/** The bench's measured purge, as docs/benchmarks.json holds it: the rate and the concurrency it ran at. */
function benchPurge(): { perSecond: number; concurrency: number } {
  const results = JSON.parse(readFileSync(resolve(ROOT, 'docs/benchmarks.json'), 'utf8')) as {
    figures: { purge: { worker: { perSecond: number } } };
    tables: { title: string }[];
  };
  const title = results.tables.find((table) => table.title.startsWith('Purge end to end'))?.title ?? '';
  const concurrency = /concurrency (\d+)/.exec(title)?.[1];
  if (!concurrency)
    throw new Error('docs/benchmarks.json: no "Purge end to end" table naming its concurrency');
  return { perSecond: results.figures.purge.worker.perSecond, concurrency: Number(concurrency) };
}

describe.each(OVERLAYS.map((overlay) => [overlay.name, overlay] as const))(
  "%s: the worker autoscaler's rate",
  (_name, overlay) => {
    it("is the bench's purge rate, measured at the concurrency the overlay runs", () => {
      const measured = benchPurge();
      expect(Number(overlay.settings.WORKER_CONCURRENCY)).toBe(measured.concurrency);
      // Rounded down, and regenerated results that move it by more than a tenth ask for a new value.
      expect(overlay.worker.purgesPerSecond).toBeLessThanOrEqual(measured.perSecond);
      expect(overlay.worker.purgesPerSecond).toBeGreaterThanOrEqual(measured.perSecond * 0.9);
    });
  },
);
