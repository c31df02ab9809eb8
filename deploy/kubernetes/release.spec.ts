import { resolve } from 'node:path';
import { parse } from 'yaml';
import { PodMonitor, PrometheusRule } from './monitoring.ts';
import { LOCAL, PRODUCTION, type Overlay } from './overlays.ts';
import { checkRelease, DEFAULT_RELEASE, imageOf, type Release } from './release.ts';
import { renderOverlay } from './render.ts';

const ROOT = resolve(__dirname, '../..');
const DIGEST = `sha256:${'ab'.repeat(32)}`;
const COMMIT = 'c0ffee'.padEnd(40, '0');

/** The objects of one rendered file. */
async function rendered(overlay: Overlay, release: Release, file: string) {
  const files = await renderOverlay(ROOT, overlay, release);
  return parse(files.get(file) ?? 'null') as unknown;
}

describe('a render for a release', () => {
  it('pins the image by the digest or the commit it is given', () => {
    expect(imageOf(PRODUCTION, { ...DEFAULT_RELEASE, image: { digest: DIGEST } })).toEqual({
      image: `video-deletion-search@${DIGEST}`,
      imagePullPolicy: 'IfNotPresent',
    });
    expect(imageOf(PRODUCTION, { ...DEFAULT_RELEASE, image: { commit: COMMIT } }).image).toBe(
      `video-deletion-search:${COMMIT}`,
    );
    // The local overlay's image is built on the machine, whatever the release says.
    expect(imageOf(LOCAL, { ...DEFAULT_RELEASE, image: { digest: DIGEST } })).toEqual({
      image: 'video-deletion-search:dev',
      imagePullPolicy: 'Never',
    });
  });

  it('refuses what is not a pin, and a runbook base that is not absolute', () => {
    expect(() => checkRelease({ ...DEFAULT_RELEASE, image: { digest: 'latest' } })).toThrow(/digest/);
    expect(() => checkRelease({ ...DEFAULT_RELEASE, image: { commit: 'c0ffee' } })).toThrow(/40-hex/);
    expect(() => checkRelease({ runbookBaseUrl: 'deploy/' })).toThrow(/absolute/);
    expect(() => checkRelease({ runbookBaseUrl: 'https://git.example.com/repo' })).toThrow(/end with \//);
    expect(() => checkRelease({ ...DEFAULT_RELEASE, secretChecksum: 'not hex' })).toThrow(/hex/);
  });

  it('writes the pin into every container, the Secret digest beside the config, the runbooks under the base', async () => {
    const release: Release = {
      image: { digest: DIGEST },
      runbookBaseUrl: 'https://git.example.org/videos/blob/0123abc/',
      secretChecksum: 'f'.repeat(64),
    };
    const deployment = (await rendered(PRODUCTION, release, 'worker-deployment.yaml')) as {
      spec: {
        template: {
          metadata: { annotations: Record<string, string> };
          spec: { containers: { image: string }[] };
        };
      };
    };
    expect(deployment.spec.template.spec.containers[0]!.image).toBe(`video-deletion-search@${DIGEST}`);
    expect(deployment.spec.template.metadata.annotations['checksum/secret']).toBe('f'.repeat(64));
    const rule = (await rendered(PRODUCTION, release, 'prometheusrule.yaml')) as {
      spec: { groups: { rules: { annotations: { runbook_url: string } }[] }[] };
    };
    for (const url of rule.spec.groups.flatMap((group) => group.rules.map((r) => r.annotations.runbook_url)))
      expect(url).toMatch(
        /^https:\/\/git\.example\.org\/videos\/blob\/0123abc\/(docs|deploy\/runbooks)\/[^#]+#.+$/,
      );
  });

  it('adds the queue dashboard on an Ingress of its own only when the overlay asks for it, admitted by its controller', async () => {
    expect(await rendered(PRODUCTION, DEFAULT_RELEASE, 'queue-dashboard-ingress.yaml')).toBeNull();
    const overlay: Overlay = {
      ...PRODUCTION,
      ingress: {
        ...PRODUCTION.ingress,
        queueDashboard: {
          className: 'internal',
          controllerNamespace: 'ingress-internal',
          host: 'queues.internal',
          tlsSecret: 'queues-tls',
        },
      },
    };
    const ingress = (await rendered(overlay, DEFAULT_RELEASE, 'queue-dashboard-ingress.yaml')) as {
      spec: { ingressClassName: string; tls: unknown; rules: { host: string; http: { paths: unknown[] } }[] };
    };
    expect(ingress.spec.ingressClassName).toBe('internal');
    expect(ingress.spec.tls).toEqual([{ hosts: ['queues.internal'], secretName: 'queues-tls' }]);
    expect(ingress.spec.rules[0]!.http.paths).toEqual([
      {
        path: '/admin/queues',
        pathType: 'Prefix',
        backend: { service: { name: 'video-search-queue-dashboard', port: { name: 'http' } } },
      },
    ]);
    const policy = (await rendered(overlay, DEFAULT_RELEASE, 'api-networkpolicy.yaml')) as {
      spec: { ingress: { from: { namespaceSelector: { matchLabels: Record<string, string> } }[] }[] };
    };
    expect(
      policy.spec.ingress[0]!.from.map(
        (peer) => peer.namespaceSelector.matchLabels['kubernetes.io/metadata.name'],
      ),
    ).toEqual(['ingress-nginx', 'ingress-internal']);
  });

  it('runs the pods at the priority class and admits the nodes given', async () => {
    const overlay: Overlay = { ...PRODUCTION, priorityClassName: 'video-search', nodeCidrs: ['10.0.0.0/16'] };
    const deployment = (await rendered(overlay, DEFAULT_RELEASE, 'api-deployment.yaml')) as {
      spec: { template: { spec: { priorityClassName: string } } };
    };
    expect(deployment.spec.template.spec.priorityClassName).toBe('video-search');
    const policy = (await rendered(overlay, DEFAULT_RELEASE, 'worker-networkpolicy.yaml')) as {
      spec: { ingress: { from: unknown[] }[] };
    };
    expect(policy.spec.ingress[0]!.from).toContainEqual({ ipBlock: { cidr: '10.0.0.0/16' } });
  });
});

describe("the Prometheus Operator's objects' own validation", () => {
  it('refuses a PodMonitor without a port name or with a malformed interval', () => {
    const monitor = (port: string, interval: string) =>
      new PodMonitor({
        metadata: { name: 'video-search-api' },
        spec: {
          selector: { matchLabels: { app: 'x' } },
          podMetricsEndpoints: [{ port, path: '/metrics', interval, scrapeTimeout: '10s', relabelings: [] }],
        },
      });
    expect(() => monitor('metrics', '30s').validate()).not.toThrow();
    expect(() => monitor('', '30s').validate()).toThrow(/port must be a port name/);
    expect(() => monitor('metrics', 'thirty').validate()).toThrow(/interval must be a duration/);
    expect(() => monitor('metrics', '').validate()).toThrow(/interval must be a duration/);
  });

  it('refuses a PrometheusRule with an unnamed alert or a malformed `for`', () => {
    const rule = (alert: string, wait: string) =>
      new PrometheusRule({
        metadata: { name: 'video-search' },
        spec: { groups: [{ name: 'g', rules: [{ alert, expr: 'up == 0', for: wait }] }] },
      });
    expect(() => rule('TargetDown', '5m').validate()).not.toThrow();
    expect(() => rule('target down', '5m').validate()).toThrow(/alert must be a name/);
    expect(() => rule('TargetDown', 'five minutes').validate()).toThrow(/for must be a duration/);
  });
});
