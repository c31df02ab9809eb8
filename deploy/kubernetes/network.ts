/**
 * How traffic reaches the pods: the network policies that say from where, and the Ingresses that
 * publish the API's public routes (and, only when asked, the queue dashboard on one of its own).
 */
import { Ingress } from 'kubernetes-models/networking.k8s.io/v1/Ingress';
import { NetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1/NetworkPolicy';
import type { INetworkPolicyPeer } from 'kubernetes-models/networking.k8s.io/v1/NetworkPolicyPeer';
import type { IHTTPIngressPath } from 'kubernetes-models/networking.k8s.io/v1/HTTPIngressPath';
import { meta, NAMES, selectorLabels } from './names.ts';
import type { Overlay } from './overlays.ts';
import { PROCESSES } from './processes.ts';

const namespace = (name: string): INetworkPolicyPeer => ({
  namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': name } },
});

/**
 * Who may connect to each port of a component's pods: the API's public port only from the ingress
 * controllers' namespaces, the ports for operators (metrics, the worker's health) only from the
 * monitoring namespace. The ports listen on the pod's address (INTERNAL_HOST), which every pod of
 * the cluster can reach: this is what keeps the others out. The probed port also admits the nodes
 * (`nodeCidrs`), for network plugins that do not exempt the kubelet's probes themselves.
 */
export function networkPolicy(overlay: Overlay, component: 'api' | 'worker', version: string): NetworkPolicy {
  const { ports } = PROCESSES[component];
  const controllers = [
    overlay.ingress.controllerNamespace,
    ...(overlay.ingress.queueDashboard ? [overlay.ingress.queueDashboard.controllerNamespace] : []),
  ];
  const nodes: INetworkPolicyPeer[] = overlay.nodeCidrs.map((cidr) => ({ ipBlock: { cidr } }));
  return new NetworkPolicy({
    metadata: meta(NAMES[component], component, version),
    spec: {
      podSelector: { matchLabels: selectorLabels(component) },
      policyTypes: ['Ingress'],
      ingress: ports.map(({ name, setting }, index) => ({
        from: [
          ...(setting === 'PORT' ? [...new Set(controllers)] : [overlay.monitoringNamespace]).map(namespace),
          // The first port serves the probes (processes.ts).
          ...(index === 0 ? nodes : []),
        ],
        ports: [{ port: name, protocol: 'TCP' as const }],
      })),
    },
  });
}

/**
 * Where the API serves the queue dashboard (the API's DASHBOARD_PATH: deploy/ describes the apps
 * from outside, and manifests.spec.ts checks the two agree).
 */
export const QUEUE_DASHBOARD_PATH = '/admin/queues';

/** A path of the API's public port, on the API's Service. */
const apiPath = (path: string, pathType: 'Prefix' | 'Exact', service: string): IHTTPIngressPath => ({
  path,
  pathType,
  backend: { service: { name: service, port: { name: 'http' } } },
});

/**
 * What the public may reach: the API (`/api`) and its documentation (`/docs`, the Swagger UI, and
 * `/docs-json`, the document it reads). Not the probes, not the queue dashboard.
 */
export const PUBLIC_PATHS = [
  { path: '/api', pathType: 'Prefix' },
  { path: '/docs', pathType: 'Prefix' },
  { path: '/docs-json', pathType: 'Exact' },
] as const;

function ingressOf(
  name: string,
  version: string,
  spec: { className: string; host?: string; tlsSecret?: string },
  paths: IHTTPIngressPath[],
): Ingress {
  return new Ingress({
    metadata: meta(name, 'api', version),
    spec: {
      ingressClassName: spec.className,
      ...(spec.tlsSecret && spec.host ? { tls: [{ hosts: [spec.host], secretName: spec.tlsSecret }] } : {}),
      rules: [{ ...(spec.host ? { host: spec.host } : {}), http: { paths } }],
    },
  });
}

export function publicIngress(overlay: Overlay, version: string): Ingress {
  return ingressOf(
    NAMES.api,
    version,
    overlay.ingress,
    PUBLIC_PATHS.map(({ path, pathType }) => apiPath(path, pathType, NAMES.api)),
  );
}

/** The queue dashboard on an ingress of its own (an internal class, a host of its own), when asked for. */
export function queueDashboardIngress(overlay: Overlay, version: string): Ingress | undefined {
  const dashboard = overlay.ingress.queueDashboard;
  if (!dashboard) return undefined;
  return ingressOf(NAMES.dashboard, version, dashboard, [
    apiPath(QUEUE_DASHBOARD_PATH, 'Prefix', NAMES.dashboard),
  ]);
}
