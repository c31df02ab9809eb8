import { startRoundRobinProxy, type ProxiedAnswer } from './round-robin-proxy';

/** One readiness probe of one backend, as the kubelet would have seen it. */
export interface ReadinessSample {
  backend: string;
  at: number;
  /** 0 when the probe got no answer within its timeout. */
  status: number;
  /** The answer's `status` field (`ok`, `degraded`, …), when it had one. */
  state?: string;
}

export interface ServiceProxy {
  url: string;
  /** Every probe made, in order. */
  samples: ReadinessSample[];
  answers: ProxiedAnswer[];
  /** Backends that left the pool (failureThreshold failed probes in a row), with when. */
  removals: { backend: string; at: number }[];
  /** Requests no backend took: none was ready, or each one refused or dropped it. */
  unplaced(): ProxiedAnswer[];
  /** Connections a backend refused or dropped before answering (the request went on to another). */
  connectionErrors(): number;
  close(): Promise<void>;
}

export interface ServiceProxyOptions {
  periodMs?: number;
  timeoutMs?: number;
  failureThreshold?: number;
}

/**
 * A Kubernetes Service in front of API processes, on loopback: every `periodMs` each backend's
 * `/health/ready` is probed (as the kubelet does, a probe without an answer within `timeoutMs`
 * fails), a backend leaves the pool after `failureThreshold` failures in a row and joins it again
 * after one success, and requests go round-robin to the backends in the pool
 * (`round-robin-proxy.ts`). Every backend starts in the pool, as ready pods do.
 */
export async function startServiceProxy(
  backends: string[],
  { periodMs = 1_000, timeoutMs = 1_000, failureThreshold = 2 }: ServiceProxyOptions = {},
): Promise<ServiceProxy> {
  const balancer = await startRoundRobinProxy(backends);
  const samples: ReadinessSample[] = [];
  const removals: { backend: string; at: number }[] = [];
  const failures = new Map(backends.map((backend) => [backend, 0]));
  const inPool = new Set(backends);

  const probe = async (backend: string): Promise<void> => {
    const at = Date.now();
    let status = 0;
    let state: string | undefined;
    try {
      const response = await fetch(`${backend}/health/ready`, { signal: AbortSignal.timeout(timeoutMs) });
      status = response.status;
      state = ((await response.json()) as { status?: string }).status;
    } catch {
      // No answer in time: a failed probe.
    }
    samples.push({ backend, at, status, ...(state ? { state } : {}) });
    const failed = status < 200 || status >= 400;
    const count = failed ? failures.get(backend)! + 1 : 0;
    failures.set(backend, count);
    if (failed && count >= failureThreshold && inPool.delete(backend)) removals.push({ backend, at });
    if (!failed) inPool.add(backend);
    balancer.setBackends(backends.filter((b) => inPool.has(b)));
  };

  let stopped = false;
  // Each backend on its own schedule, so one slow probe does not delay the others'.
  const probing = backends.map(async (backend) => {
    while (!stopped) {
      const started = Date.now();
      await probe(backend);
      await new Promise((next) => setTimeout(next, Math.max(0, periodMs - (Date.now() - started))));
    }
  });

  return {
    url: balancer.url,
    samples,
    answers: balancer.answers,
    removals,
    unplaced: () => balancer.answers.filter((answer) => answer.backend === ''),
    connectionErrors: () => balancer.answers.reduce((sum, answer) => sum + answer.refused, 0),
    async close() {
      stopped = true;
      await Promise.all(probing);
      await balancer.close();
    },
  };
}
