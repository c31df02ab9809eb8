import { cpuSeconds, cpuSince, mergeMeasured, type CpuSeconds, type MeasuredRun } from './lib/cpu';
import { benchToken, sleep, type BenchContext } from './lib/kit';
import { timedHttpLoad, type HttpLoad } from './lib/load';
import { roundOrder } from './lib/order';
import { queryMix } from './lib/queries';
import type { TimedRun } from './lib/stats';

/** Seconds of each slice of search load: a side's load is cut so it ends with the expunge it runs beside. */
const SLICE_SECONDS = 2;
/**
 * How long a deletion waits before an expunge can drop it: Elasticsearch keeps recent deletions for
 * its copies' history until its retention leases move, about every 30 s.
 */
const SETTLE_MS = 40_000;

export interface ExpungeRun {
  /** Documents rewritten before it, each leaving a deleted one behind. */
  churned: number;
  deletedBefore: number;
  deletedAfter: number;
  segmentsBefore: number;
  segmentsAfter: number;
  seconds: number;
}

export interface ExpungeBench {
  documents: number;
  /** Searches through the API, the index holding its churned documents' deleted copies. */
  quiet: MeasuredRun;
  /** The same searches while the expunge sweep's merge runs, for as long as it runs. */
  expunging: MeasuredRun;
  /** Every measured expunge, in the order they ran. */
  expunges: ExpungeRun[];
}

/**
 * What the expunge sweep (IndexAdmin.expungeDeletes) costs the searches beside it, at whatever the
 * bench's index holds: before each round `churnShare` of the documents, drawn at random, are
 * rewritten as they are (each leaves its old copy deleted in its segment, as a deletion or an
 * update does), and left `SETTLE_MS` to become expungeable. Then one side searches for as long as
 * an expunge runs; the other searches as long with nothing else running. Sides alternate (a b b a);
 * an unmeasured round of each first warms the API, Elasticsearch and the merge's code.
 */
export async function benchExpunge(
  context: BenchContext,
  apiUrl: string,
  { concurrency, rounds, churnShare }: { concurrency: number; rounds: number; churnShare: number },
): Promise<ExpungeBench> {
  const queries = await queryMix(context.dataSource);
  const search: Omit<HttpLoad, 'durationSeconds' | 'amount'> = {
    url: apiUrl,
    headers: { authorization: `Bearer ${benchToken()}` },
    request: (i: number) => ({
      path: `/api/videos/search?q=${encodeURIComponent(queries[i % queries.length]!)}&limit=20`,
    }),
    concurrency,
  };
  const documents = await documentCount(context);
  const churn = Math.max(1, Math.round(documents * churnShare));
  let lastSeconds = 0;

  /** Search load, a slice at a time, until `until` says stop; its slices and the CPU they used. */
  const load = async (until: () => boolean) => {
    const slices: TimedRun[] = [];
    const before = cpuSeconds();
    do slices.push(await timedHttpLoad({ ...search, durationSeconds: SLICE_SECONDS }));
    while (!until());
    return { slices, cpu: cpuSince(before) };
  };
  const sides = {
    async expunging() {
      await churnDocuments(context, churn);
      const segmentsBefore = await segmentCount(context);
      const started = performance.now();
      let done = false;
      const expunge = context.indexAdmin.expungeDeletes().finally(() => (done = true));
      const searched = await load(() => done);
      const result = await expunge;
      lastSeconds = (performance.now() - started) / 1000;
      const run: ExpungeRun = {
        churned: churn,
        deletedBefore: result.deletedBefore,
        deletedAfter: result.deletedAfter,
        segmentsBefore,
        segmentsAfter: await segmentCount(context),
        seconds: lastSeconds,
      };
      return { ...searched, run };
    },
    async quiet() {
      await churnDocuments(context, churn);
      const until = performance.now() + lastSeconds * 1000;
      return { ...(await load(() => performance.now() >= until)), run: undefined };
    },
  };
  // Unmeasured: the expunge first, so the quiet side knows how long to search.
  await sides.expunging();
  await sides.quiet();
  const measured: Record<keyof typeof sides, (TimedRun & { cpu: CpuSeconds })[]> = {
    expunging: [],
    quiet: [],
  };
  const expunges: ExpungeRun[] = [];
  for (let round = 0; round < rounds; round++) {
    for (const side of roundOrder(['expunging', 'quiet'] as const, round)) {
      const { slices, cpu, run } = await sides[side]();
      measured[side].push({ ...mergeSlices(slices), cpu });
      if (run) expunges.push(run);
    }
  }
  return {
    documents,
    quiet: mergeMeasured(measured.quiet),
    expunging: mergeMeasured(measured.expunging),
    expunges,
  };
}

function mergeSlices(slices: TimedRun[]): TimedRun {
  return {
    latencies: slices.flatMap((slice) => slice.latencies),
    seconds: slices.reduce((sum, slice) => sum + slice.seconds, 0),
    errors: slices.reduce((sum, slice) => sum + slice.errors, 0),
  };
}

async function documentCount(context: BenchContext): Promise<number> {
  const { count } = await context.engine.count({ index: context.config.ELASTICSEARCH_INDEX });
  return count;
}

async function segmentCount(context: BenchContext): Promise<number> {
  const stats = await context.engine.indices.stats({
    index: context.config.ELASTICSEARCH_INDEX,
    metric: ['segments'],
  });
  return stats._all.primaries?.segments?.count ?? 0;
}

/**
 * Rewrites `count` documents drawn at random, each as it is and at its own version (a write the
 * versioned index takes, `external_gte`), then waits until their old copies can be expunged.
 */
async function churnDocuments(context: BenchContext, count: number): Promise<void> {
  const index = context.config.ELASTICSEARCH_INDEX;
  let left = count;
  while (left > 0) {
    const size = Math.min(left, 5_000);
    const found = await context.engine.search<Record<string, unknown>>({
      index,
      size,
      version: true,
      query: { function_score: { query: { match_all: {} }, functions: [{ random_score: {} }] } },
    });
    const operations = found.hits.hits.flatMap((hit) => [
      {
        index: {
          _index: hit._index,
          _id: hit._id!,
          version: hit._version!,
          version_type: 'external_gte' as const,
        },
      },
      hit._source!,
    ]);
    const written = await context.engine.bulk({ operations, refresh: true });
    if (written.errors) throw new Error('churn: a rewrite was refused');
    left -= size;
  }
  await sleep(SETTLE_MS);
}
