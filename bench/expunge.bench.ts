import { indexState } from './lib/bench-data';
import { mergeMeasured, withCpu, type MeasuredRun } from './lib/cpu';
import { apiSearchHeader, apiSearchRow, atMost, count } from './lib/figures';
import { sleep, startApi, type BenchContext } from './lib/kit';
import { apiSearches, timedHttpLoad } from './lib/load';
import { alternate } from './lib/order';
import { queryMix } from './lib/queries';
import type { Step } from './lib/step';
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

/** The search comparisons' connections; 1 % of the documents rewritten before each round: a day's churn of a busy catalogue. */
const SETTINGS = { concurrency: 8, rounds: 2, churnShare: 0.01 };

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

/**
 * What the expunge sweep (IndexAdmin.expungeDeletes) costs the searches beside it, at whatever the
 * bench's index holds: before each round 1 % of the documents, drawn at random, are rewritten as
 * they are (each leaves its old copy deleted in its segment, as a deletion or an update does), and
 * left `SETTLE_MS` to become expungeable. Then one side searches for as long as an expunge runs;
 * the other searches as long with nothing else running. Sides alternate (a b b a); an unmeasured
 * round of each first warms the API, Elasticsearch and the merge's code.
 */
export const expungeStep: Step<{ expunge: ExpungeBench }> = {
  name: 'expunge',
  measures:
    'search through the API while the expunge sweep (IndexAdmin.expungeDeletes) runs, after 1 % of the documents are rewritten',
  baseline: 'the same searches for as long, with nothing beside them',
  data: 'index',
  async run({ context }) {
    const { concurrency, rounds, churnShare } = SETTINGS;
    const { count: documents } = await context.engine.count({ index: context.config.ELASTICSEARCH_INDEX });
    const churn = Math.max(1, Math.round(documents * churnShare));
    const queries = await queryMix(context.dataSource);
    const api = await startApi();
    try {
      const search = apiSearches(api.url, queries, concurrency);
      /** Search load, a slice at a time, until `until` says stop: one run of all its slices, and the CPU they used. */
      const load = (until: () => boolean) =>
        withCpu(async () => {
          const run: TimedRun = { latencies: [], seconds: 0, errors: 0 };
          do {
            const slice = await timedHttpLoad({ ...search, durationSeconds: SLICE_SECONDS });
            run.latencies.push(...slice.latencies);
            run.seconds += slice.seconds;
            run.errors += slice.errors;
          } while (!until());
          return run;
        });
      const expunges: ExpungeRun[] = [];
      // The expunge first in each round's order: the quiet side searches as long as the last one ran.
      const sides = {
        async expunging() {
          await churnDocuments(context, churn);
          const segmentsBefore = (await indexState(context)).segments;
          const started = performance.now();
          let done = false;
          const expunge = context.indexAdmin.expungeDeletes().finally(() => (done = true));
          const searched = await load(() => done);
          const { deletedBefore, deletedAfter } = await expunge;
          const seconds = (performance.now() - started) / 1000;
          const segmentsAfter = (await indexState(context)).segments;
          expunges.push({
            churned: churn,
            deletedBefore,
            deletedAfter,
            segmentsBefore,
            segmentsAfter,
            seconds,
          });
          return searched;
        },
        async quiet() {
          await churnDocuments(context, churn);
          const until = performance.now() + expunges.at(-1)!.seconds * 1000;
          return load(() => performance.now() >= until);
        },
      };
      await alternate(sides, 1);
      expunges.length = 0;
      const measured = await alternate(sides, rounds);
      return {
        expunge: {
          documents,
          quiet: mergeMeasured(measured.quiet),
          expunging: mergeMeasured(measured.expunging),
          expunges,
        },
      };
    } finally {
      await api.process.stop();
    }
  },
  report({ expunge }) {
    const { concurrency, rounds, churnShare } = SETTINGS;
    return {
      tables: [
        {
          title:
            `Search during the expunge sweep and without, at ${count(expunge.documents)} documents ` +
            `(${concurrency} connections; ${rounds} alternating rounds, a b b a, after an unmeasured ` +
            `round of each; before every round ${churnShare * 100} % of the documents, drawn at random, rewritten ` +
            `and left to settle; one side searches while the expunge runs, the other as long with nothing beside it)`,
          header: apiSearchHeader,
          rows: [
            apiSearchRow('search, no expunge', expunge.quiet),
            apiSearchRow('search during the expunge', expunge.expunging),
          ],
        },
        {
          title:
            'The expunges measured above (IndexAdmin.expungeDeletes: a forcemerge with only_expunge_deletes)',
          header: [
            'documents rewritten',
            'deleted documents before → after',
            'segments before → after',
            'seconds',
          ],
          rows: expunge.expunges.map((run) => [
            count(run.churned),
            `${count(run.deletedBefore)} → ${count(run.deletedAfter)}`,
            `${run.segmentsBefore} → ${run.segmentsAfter}`,
            run.seconds.toFixed(1),
          ]),
        },
      ],
      targets: [
        atMost(
          `search p99 at ${count(expunge.documents)} documents, during the expunge / without`,
          expunge.expunging.p99 / expunge.quiet.p99,
          1.5,
        ),
      ],
    };
  },
};
