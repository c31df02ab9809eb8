/**
 * Churn beside a search comparison: soft deletes of random active videos through the API, each
 * video restored a moment later, at a fixed rate whether the API keeps up or not (an open loop, as
 * people's clicks are), so that a slow answer never slows the churn down. The index then takes
 * small writes and refreshes all through the searches, as a live catalogue's does.
 */
import { percentile } from './stats';

export interface ChurnRate {
  /** Deletes per second, and as many restores. */
  perSecond: number;
  /** How long after its delete a video is restored. */
  lagMs: number;
}

/**
 * How many deletes and restores are due `elapsedMs` after the churn started: the k-th delete
 * (counting from 0) at k / perSecond seconds, its restore `lagMs` after that.
 */
export function churnDue(
  elapsedMs: number,
  { perSecond, lagMs }: ChurnRate,
): { deletes: number; restores: number } {
  const due = (ms: number) => (ms < 0 ? 0 : Math.floor((ms * perSecond) / 1000) + 1);
  return { deletes: due(elapsedMs), restores: due(elapsedMs - lagMs) };
}

/**
 * The fewest videos to cycle through: a video comes round again only after every other one, so
 * with ten times as many as are deleted at any moment, none is picked while still deleted, even
 * when its restore waits seconds for a slow delete.
 */
export function videosNeeded({ perSecond, lagMs }: ChurnRate): number {
  return Math.ceil((perSecond * lagMs) / 1000) * 10;
}

/** One churn request: what it was, how long it took, and why it failed if it did. */
interface Outcome {
  kind: 'delete' | 'restore';
  ms: number;
  error?: string;
}

export interface ChurnFigures {
  deletes: number;
  restores: number;
  /** Failed requests of either kind (a failed delete's restore is not attempted). */
  errors: number;
  /** Latency of the answered requests, deletes and restores together. */
  p50: number;
  p99: number;
  /** The first few distinct failures, as they came. */
  failures: string[];
}

/** Figures of a run of outcomes. */
export function churnFigures(outcomes: readonly Outcome[]): ChurnFigures {
  const answered = outcomes.filter((o) => o.error === undefined).map((o) => o.ms);
  answered.sort((a, b) => a - b);
  const failures = [...new Set(outcomes.flatMap((o) => (o.error === undefined ? [] : [o.error])))];
  return {
    deletes: outcomes.filter((o) => o.kind === 'delete').length,
    restores: outcomes.filter((o) => o.kind === 'restore').length,
    errors: outcomes.length - answered.length,
    p50: percentile(answered, 50),
    p99: percentile(answered, 99),
    failures: failures.slice(0, 5),
  };
}

/** A stretch of a churn's history, between two of its marks. */
export type Stretch = [from: number, to: number];

export interface Churn {
  /** A mark in the churn's history: the requests that ended before it are on one side. */
  mark(): number;
  /** The figures of the requests that ended within these stretches. */
  figures(stretches: readonly Stretch[]): ChurnFigures;
  /** Stops deleting, restores every video still deleted, and gives the figures of the whole run; again, the same figures. */
  stop(): Promise<ChurnFigures>;
}

const TICK_MS = 10;

/**
 * Starts the churn on `ids` (in their order, cycling) through the API at `apiUrl`, with an admin
 * `token`. Its requests are not searches: they are counted here, never in a search load.
 */
export function startChurn(apiUrl: string, token: string, ids: readonly string[], rate: ChurnRate): Churn {
  if (ids.length < videosNeeded(rate))
    throw new Error(`churn: ${ids.length} videos, at least ${videosNeeded(rate)} needed`);
  const outcomes: Outcome[] = [];
  const deletes: Promise<boolean>[] = [];
  const restores: Promise<void>[] = [];
  const headers = { authorization: `Bearer ${token}` };
  const send = async (kind: Outcome['kind'], method: string, path: string): Promise<boolean> => {
    const started = performance.now();
    let error: string | undefined;
    try {
      const response = await fetch(`${apiUrl}${path}`, { method, headers });
      await response.arrayBuffer();
      if (!response.ok) error = `${method} ${response.status}`;
    } catch (failure) {
      error = `${method} ${(failure as Error).message}`;
    }
    outcomes.push({ kind, ms: performance.now() - started, ...(error === undefined ? {} : { error }) });
    return error === undefined;
  };
  const id = (k: number) => ids[k % ids.length]!;
  const restore = (k: number) => {
    restores.push(
      deletes[k]!.then(async (deleted) => {
        if (deleted) await send('restore', 'POST', `/api/videos/${id(k)}/restore`);
      }),
    );
  };
  const started = performance.now();
  const timer = setInterval(() => {
    const due = churnDue(performance.now() - started, rate);
    while (deletes.length < due.deletes)
      deletes.push(send('delete', 'DELETE', `/api/videos/${id(deletes.length)}?retentionDays=30`));
    while (restores.length < Math.min(due.restores, deletes.length)) restore(restores.length);
  }, TICK_MS);
  return {
    mark: () => outcomes.length,
    figures: (stretches) => churnFigures(stretches.flatMap(([from, to]) => outcomes.slice(from, to))),
    async stop() {
      clearInterval(timer);
      while (restores.length < deletes.length) restore(restores.length);
      await Promise.all(restores);
      return churnFigures(outcomes);
    },
  };
}
