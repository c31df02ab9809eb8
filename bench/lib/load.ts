import autocannon from 'autocannon';
import type { RunStats } from './stats';

export interface HttpLoad {
  url: string;
  method?: 'GET' | 'POST' | 'DELETE';
  headers?: Record<string, string>;
  /** Path (and body) of the i-th request, so every request can differ. */
  request: (i: number) => { path: string; body?: string };
  concurrency: number;
  durationSeconds?: number;
  amount?: number;
}

/** An HTTP load with autocannon; every non-2xx answer counts as an error. */
export async function httpLoad(load: HttpLoad): Promise<RunStats> {
  let i = 0;
  const result = await autocannon({
    url: load.url,
    connections: load.concurrency,
    ...(load.amount ? { amount: load.amount } : { duration: load.durationSeconds ?? 10 }),
    requests: [
      {
        method: load.method ?? 'GET',
        headers: load.headers,
        setupRequest: (request) => {
          const next = load.request(i++);
          return { ...request, path: next.path, ...(next.body !== undefined ? { body: next.body } : {}) };
        },
      },
    ],
  });
  const seconds = result.duration;
  const ok = result['2xx'];
  return {
    requests: ok,
    seconds,
    perSecond: ok / seconds,
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.non2xx + result.errors + result.timeouts,
  };
}
