import { Redis } from 'ioredis';
import { clusterRead, startElasticsearchNode } from '../elasticsearch-node';
import { sleep } from '../processes';
import { startOwnRedis } from '../redis-server';
import { seedVideos } from '../seed';
import { startSystem, token } from '../system';
import { openTestContext } from '../test-context';
import { runLoops, send, tally, type Sent } from '../traffic';
import type { ScenarioReport } from './report';

export interface CursorStormOptions {
  /** Videos matching the walks' query: `videos / limit` pages per walk. */
  videos: number;
  limit: number;
  /** Follows of one and the same cursor. */
  replays: number;
  /** Callers walking; each starts `maxPerCaller + 1` walks, so its last one meets its own ceiling. */
  callers: number;
  /** Every n-th caller leaves its walks after their first cursor page: they hold their points in time until these lapse. */
  abandonEvery: number;
  /** Requests in flight at once, for the replays and for the walkers. */
  concurrency: number;
  /** SEARCH_PIT_MAX_OPEN and SEARCH_PIT_MAX_PER_CALLER of the API. */
  maxOpen: number;
  maxPerCaller: number;
}

/** Page searches (no cursor) of other callers that run throughout, two at a time. */
const OTHERS_CONCURRENCY = 2;

interface Sample {
  phase: string;
  /** `open_contexts` of the test's own Elasticsearch node. */
  contexts: number;
  /** Points in time the API counts in Redis. */
  counted: number;
}

const isProperTooMany = (sent: Sent) =>
  sent.status === 429 &&
  sent.retryAfter !== null &&
  Number(sent.retryAfter) >= 1 &&
  (sent.contentType ?? '').startsWith('application/problem+json');

const detail = (sent: Sent) => String((sent.body as { detail?: string } | null)?.detail ?? '');
const nextCursor = (sent: Sent) => (sent.body as { nextCursor?: string } | null)?.nextCursor;

/**
 * Issue 29's cursor storm (docs/reliability.md): one cursor followed `replays` times, then
 * `callers` callers walking several walks each, some left half-way, against one API whose
 * ceilings on points in time are small, on an Elasticsearch node and a Redis of the test's own.
 * Throughout, the node's open search contexts (sampled every 100 ms) must stay within the
 * ceiling plus the plain searches in flight (each holds one context per search of its
 * `_msearch` while it runs), the points in time counted in Redis within the ceiling; replays
 * must all answer 200 on one point in time; walkers 200 or a proper 429; and other callers'
 * searches by page number 200, every one.
 */
export async function cursorStorm(options: CursorStormOptions): Promise<ScenarioReport> {
  const es = await startElasticsearchNode();
  const redis = await startOwnRedis();
  const counter = new Redis(redis.url);
  const env = {
    ELASTICSEARCH_URL: es.url,
    REDIS_URL: redis.url,
    SEARCH_PIT_MAX_OPEN: String(options.maxOpen),
    SEARCH_PIT_MAX_PER_CALLER: String(options.maxPerCaller),
  };
  const context = await openTestContext(env);
  let system: Awaited<ReturnType<typeof startSystem>> | undefined;
  try {
    await context.reset();
    await seedVideos(context, options.videos, { title: (i) => `Storm walk ${i}`, objectsPerVideo: 0 });
    system = await startSystem(env, { worker: false });
    const api = system.api;
    const query = `/api/videos/search?q=storm+walk&limit=${options.limit}`;
    const follow = (cursor: string) => `${query}&cursor=${encodeURIComponent(cursor)}`;

    let phase = 'replays';
    let stopped = false;
    const samples: Sample[] = [];
    const sampling = (async () => {
      while (!stopped) {
        const stats = await clusterRead<{
          nodes: Record<string, { indices: { search: { open_contexts: number } } }>;
        }>(es.url, '/_nodes/stats/indices/search');
        const contexts = Object.values(stats.nodes).reduce(
          (sum, node) => sum + node.indices.search.open_contexts,
          0,
        );
        samples.push({ phase, contexts, counted: await counter.zcard('{search-pit}:all') });
        await sleep(100);
      }
    })();
    const others: Sent[] = [];
    let otherCaller = 0;
    const othersRunning = runLoops({
      concurrency: OTHERS_CONCURRENCY,
      until: () => stopped,
      step: async () => {
        otherCaller += 1;
        const page = 1 + (otherCaller % 3);
        others.push(
          await send('other', 'GET', api, `${query}&page=${page}`, token(`other-${otherCaller % 50}`)),
        );
      },
    });

    // One cursor, followed again and again: one point in time, whatever the count.
    const replayer = token('replayer');
    const first = await send('search', 'GET', api, query, replayer);
    const cursor = nextCursor(first);
    if (!cursor) throw new Error(`no cursor to replay: ${first.status} ${JSON.stringify(first.body)}`);
    const replays: Sent[] = [];
    let started = 0;
    await runLoops({
      concurrency: options.concurrency,
      until: () => started >= options.replays,
      step: async () => {
        started += 1;
        replays.push(await send('replay', 'GET', api, follow(cursor), replayer));
      },
    });

    // Callers walking: each starts its walks, then reads them to the end, or leaves them.
    phase = 'walkers';
    const walks: Sent[] = [];
    let nextCaller = 0;
    await runLoops({
      concurrency: options.concurrency,
      until: () => nextCaller >= options.callers,
      step: async () => {
        const n = nextCaller++;
        const bearer = token(`walker-${n}`);
        const cursors: string[] = [];
        for (let walk = 0; walk <= options.maxPerCaller; walk += 1) {
          const page = await send('walk', 'GET', api, query, bearer);
          walks.push(page);
          const opened = nextCursor(page);
          if (!opened) continue;
          const second = await send('walk', 'GET', api, follow(opened), bearer);
          walks.push(second);
          const then = nextCursor(second);
          if (then) cursors.push(then);
        }
        if (n % options.abandonEvery === 0) return;
        for (let at: string | undefined = cursors.shift(); at; at = cursors.shift()) {
          const page = await send('walk', 'GET', api, follow(at), bearer);
          walks.push(page);
          const then = nextCursor(page);
          if (then) cursors.unshift(then);
        }
      },
    });
    phase = 'after';
    await sleep(500);
    stopped = true;
    await Promise.all([sampling, othersRunning]);

    const allowance = 2 * (OTHERS_CONCURRENCY + options.concurrency);
    const during = (name: string) => samples.filter((sample) => sample.phase === name);
    const most = (list: Sample[], key: 'contexts' | 'counted') =>
      Math.max(0, ...list.map((sample) => sample[key]));
    const refusals = walks.filter((sent) => sent.status === 429);
    const ownRefusals = refusals.filter((sent) => /this caller/i.test(detail(sent))).length;
    const abandoned = Math.ceil(options.callers / options.abandonEvery);
    const violations = [
      ...replays
        .filter((sent) => sent.status !== 200)
        .map((sent) => `replay → ${sent.status} ${detail(sent)}`),
      ...walks
        .filter((sent) => sent.status !== 200 && !isProperTooMany(sent))
        .map((sent) => `walk → ${sent.status} ${JSON.stringify(sent.body)}`.slice(0, 300)),
      ...others
        .filter((sent) => sent.status !== 200)
        .map((sent) => `other caller's search → ${sent.status} ${detail(sent)}`),
    ].slice(0, 20);
    if (most(samples, 'contexts') > options.maxOpen + allowance)
      violations.push(
        `open contexts reached ${most(samples, 'contexts')}, above ${options.maxOpen} + ${allowance}`,
      );
    if (most(samples, 'counted') > options.maxOpen)
      violations.push(`points in time counted reached ${most(samples, 'counted')}, above ${options.maxOpen}`);
    if (most(during('replays'), 'counted') > 1)
      violations.push(`the replays held ${most(during('replays'), 'counted')} points in time, not one`);
    if (refusals.length === 0) violations.push('no walker met a ceiling');
    if (ownRefusals === 0) violations.push("no walker met its own caller's ceiling");
    if (others.length === 0) violations.push('no other caller searched');

    return {
      load:
        `${options.replays} replays of one cursor, then ${options.callers} callers each starting ${options.maxPerCaller + 1} walks ` +
        `of ${Math.ceil(options.videos / options.limit)} pages (every ${options.abandonEvery}th caller leaving its walks after one cursor page), ` +
        `${options.concurrency} requests at a time; other callers' page searches ${OTHERS_CONCURRENCY} at a time throughout`,
      faults: `ceilings SEARCH_PIT_MAX_OPEN=${options.maxOpen}, SEARCH_PIT_MAX_PER_CALLER=${options.maxPerCaller}; own Elasticsearch node (1 shard)`,
      expected:
        `open contexts ≤ ceiling + 2 per plain search in flight (${options.maxOpen} + ${allowance}) and points in time counted ≤ ${options.maxOpen} throughout; ` +
        'replays 200 on one point in time; walkers 200 or 429 problem+json with Retry-After; other callers 200, every one',
      observed:
        `replays ${tally(replays)} (max ${most(during('replays'), 'contexts')} open contexts, ${most(during('replays'), 'counted')} point in time counted); ` +
        `walkers ${tally(walks)} (${ownRefusals} at their own ceiling, ${refusals.length - ownRefusals} at the overall one; ${abandoned} callers left their walks); ` +
        `max open contexts ${most(samples, 'contexts')}, max counted ${most(samples, 'counted')} (${samples.length} samples); ` +
        `other callers ${tally(others)}, non-200 ${others.filter((sent) => sent.status !== 200).length}`,
      violations,
    };
  } finally {
    await system?.stop();
    counter.disconnect();
    await context.close();
    await redis.stop();
    await es.destroy();
  }
}
