import { sleep } from '../../scripts/services/wait.ts';

/** One request of a load run, as the client saw it. */
export interface Sent {
  kind: string;
  method: string;
  path: string;
  /** 0 when no answer came: connection refused or reset, or the 15 s client timeout. */
  status: number;
  sentAt: number;
  doneAt: number;
  retryAfter: string | null;
  contentType: string | null;
  body: unknown;
}

/** Sends one request and never throws: what went wrong is in the result. */
export async function send(
  kind: string,
  method: string,
  base: string,
  path: string,
  bearer: string,
): Promise<Sent> {
  const sentAt = Date.now();
  try {
    const response = await fetch(`${base}${path}`, {
      method,
      headers: { authorization: `Bearer ${bearer}` },
      signal: AbortSignal.timeout(15_000),
    });
    const text = await response.text();
    let body: unknown = text;
    try {
      body = text ? JSON.parse(text) : null;
    } catch {
      // Not JSON: kept as text, and the checks will say so.
    }
    return {
      kind,
      method,
      path,
      status: response.status,
      sentAt,
      doneAt: Date.now(),
      retryAfter: response.headers.get('retry-after'),
      contentType: response.headers.get('content-type'),
      body,
    };
  } catch (error) {
    return {
      kind,
      method,
      path,
      status: 0,
      sentAt,
      doneAt: Date.now(),
      retryAfter: null,
      contentType: null,
      body: String(error),
    };
  }
}

/** A 503 as docs/contract.md §4 wants it: problem+json with Retry-After. */
export function isProperUnavailable(sent: Sent): boolean {
  return (
    sent.status === 503 &&
    sent.retryAfter !== null &&
    (sent.contentType ?? '').startsWith('application/problem+json')
  );
}

/**
 * Runs `step` in `concurrency` loops until `until()` says stop. With `ratePerSecond`, steps start
 * on a shared schedule (an open-loop pace, capped by the concurrency); without it, as fast as the
 * answers come. Every load ends by itself: `until` is checked before each step.
 */
export async function runLoops(options: {
  concurrency: number;
  until: () => boolean;
  step: (loop: number) => Promise<void>;
  ratePerSecond?: number;
}): Promise<void> {
  const started = Date.now();
  let scheduled = 0;
  const nextSlot = () =>
    options.ratePerSecond ? started + (scheduled++ * 1_000) / options.ratePerSecond : Date.now();
  await Promise.all(
    Array.from({ length: options.concurrency }, async (_, loop) => {
      while (!options.until()) {
        const wait = nextSlot() - Date.now();
        if (wait > 0) await sleep(wait);
        if (options.until()) return;
        await options.step(loop);
      }
    }),
  );
}

/** `{ "200": 12, "503": 3 }` as `200×12, 503×3`. */
export function tally(sents: Sent[]): string {
  const counts = new Map<number, number>();
  for (const sent of sents) counts.set(sent.status, (counts.get(sent.status) ?? 0) + 1);
  if (counts.size === 0) return 'none';
  return [...counts]
    .sort(([a], [b]) => a - b)
    .map(([status, n]) => `${status === 0 ? 'no answer' : status}×${n}`)
    .join(', ');
}
