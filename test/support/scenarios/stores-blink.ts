import { loadConfig } from '@app/shared/config/load-config';
import { migrate } from '@app/shared/data-source';
import { startElasticsearchNode, type ElasticsearchNode } from '../elasticsearch-node';
import { startFaultProxy, type FaultProxy } from '../fault-proxy';
import { startOwnMysql, type OwnMysql } from '../mysql-server';
import { sleep } from '../processes';
import { startOwnRedis, type OwnRedis } from '../redis-server';
import { seedVideos } from '../seed';
import { startServiceProxy, type ServiceProxy } from '../service-proxy';
import { startSystem, token, type System } from '../system';
import { openTestContext, type TestContext } from '../test-context';
import { isProperUnavailable, runLoops, send, tally, type Sent } from '../traffic';
import { explain } from './outage-drill';
import type { ScenarioReport } from './report';

export interface StoresBlinkOptions {
  /** Callers, each with videos of its own. */
  callers: number;
  videosPerCaller: number;
  /** How long each store stays down. */
  blinkMs: number;
  /** Load before the first blink. */
  beforeMs: number;
  /** Load after each store's return, before the next one blinks (at least `recoveryMs`). */
  afterMs: number;
  /** From a store's return on, every route must answer 2xx again within this. */
  recoveryMs: number;
  /** Soft deletes and restores per second, in all (each soft delete followed by a receipt read). */
  changeRate: number;
  /** Exact-title searches per second, in all. */
  searchRate: number;
}

export type Store = 'MySQL' | 'Redis' | 'Elasticsearch' | 'S3';
type Route = 'search' | 'delete' | 'receipt' | 'restore';
const ROUTES: Route[] = ['search', 'delete', 'receipt', 'restore'];

/**
 * The routes that may answer 503 while a store is down; any other must serve. MySQL holds every
 * video's state (a search asks it about the hits it holds no copy of); Redis only counts rate
 * limits (each API counts in memory meanwhile) and carries the change feed (searches ask MySQL
 * instead); a soft delete, a restore and a receipt never touch the media.
 */
const MAY_BE_UNAVAILABLE: Record<Store, Route[]> = {
  MySQL: ['search', 'delete', 'receipt', 'restore'],
  Redis: [],
  Elasticsearch: ['search'],
  S3: [],
};

/** An answer slower than this counts as hung, although the client waits up to 15 s. */
const ANSWER_BOUND_MS = 10_000;

/** One store's blink: asked to stop at `stopping`, gone from `down`, asked back at `returning`, serving from `back`. */
interface Blink {
  store: Store;
  stopping: number;
  down: number;
  returning: number;
  back: number;
}

/** A state change of a video, with its answer: what MySQL must show at the end. */
interface Change {
  videoId: string;
  to: 'soft_deleted' | 'active';
  sent: Sent;
}

interface Stores {
  mysql: OwnMysql;
  redis: OwnRedis;
  es: ElasticsearchNode;
  s3: FaultProxy;
}

/** Each store's stop and start. */
function blinkers(stores: Stores): Record<Store, { stop(): Promise<void>; start(): Promise<void> }> {
  return {
    MySQL: { stop: () => stores.mysql.stop('SIGTERM'), start: () => stores.mysql.start() },
    Redis: { stop: () => stores.redis.stop(), start: () => stores.redis.start() },
    Elasticsearch: { stop: () => stores.es.stop(), start: () => stores.es.start() },
    S3: { stop: () => stores.s3.refuse(), start: () => stores.s3.accept() },
  };
}

/**
 * Three APIs and a worker behind a Service-like proxy (`service-proxy.ts`: readiness probed every
 * second, failureThreshold 2, round-robin over the ready ones), under steady traffic of callers
 * searching, soft-deleting their own videos, reading the receipts and restoring them. Each backing
 * service in turn (a MariaDB, a Redis and an Elasticsearch node of the scenario's own, and S3Proxy
 * behind a fault proxy that refuses connections) is stopped for `blinkMs`, then brought back.
 * Expected: readiness stays 200 throughout (a store that is down is reported in its body), so no
 * API leaves the pool and the proxy places every request; every answer is 2xx or a 503
 * problem+json with Retry-After within 10 s; after each return every route answers 2xx within
 * `recoveryMs`; every soft delete and restore answered 200 is what MySQL holds at the end.
 */
export async function storesBlink(options: StoresBlinkOptions): Promise<ScenarioReport> {
  const opened: Partial<Stores> = {};
  let context: TestContext | undefined;
  let system: System | undefined;
  let proxy: ServiceProxy | undefined;
  try {
    // The node is the slow one (20–60 s): it starts beside the others.
    const [es, mysql, redis] = await Promise.all([
      startElasticsearchNode().then((node) => (opened.es = node)),
      startOwnMysql('videos_blink').then((server) => (opened.mysql = server)),
      startOwnRedis().then((server) => (opened.redis = server)),
    ]);
    const s3 = (opened.s3 = await startFaultProxy(process.env.S3_ENDPOINT!));
    const stores: Stores = { es, mysql, redis, s3 };
    const env = {
      DATABASE_URL: mysql.url,
      REDIS_URL: redis.url,
      ELASTICSEARCH_URL: es.url,
      S3_ENDPOINT: s3.url,
    };
    await migrate(loadConfig({ ...process.env, ...env }));
    // The checks' own view goes to S3Proxy directly, so it never depends on the fault proxy.
    context = await openTestContext({ ...env, S3_ENDPOINT: process.env.S3_ENDPOINT! });
    await context.reset();
    const callers = Array.from({ length: options.callers }, (_, n) => `blink-caller-${n + 1}`);
    const videos = new Map<string, { ids: string[]; titles: string[] }>();
    for (const caller of callers) {
      const titles = Array.from(
        { length: options.videosPerCaller },
        (_, i) => `Blink ${caller} ${i} rehearsal`,
      );
      const ids = await seedVideos(context, titles.length, {
        authorId: caller,
        title: (i) => titles[i]!,
        objectsPerVideo: 0,
      });
      videos.set(caller, { ids, titles });
    }

    system = await startSystem(env);
    const apis = [system.api, (await system.startApi()).url, (await system.startApi()).url];
    // Probed as the manifests probe (deploy/kubernetes/pods.ts: 5 s timeout, failureThreshold 2), every second.
    proxy = await startServiceProxy(apis, { periodMs: 1_000, timeoutMs: 5_000, failureThreshold: 2 });
    const service = proxy;
    const bearers = new Map(callers.map((caller) => [caller, token(caller)]));

    // The load: each caller works through its own videos in turn. A video whose last change got
    // no 200 may or may not have changed: its receipt is read first when its turn comes again (404
    // then means it is active, the one 4xx the load expects), and the change follows at once.
    const sent: (Sent & { route: Route; resolving?: boolean })[] = [];
    const changes: Change[] = [];
    const believed = new Map<string, 'active' | 'soft_deleted' | 'unknown'>();
    /** Served: a 2xx, or the 404 of a receipt read to learn whether an unanswered change went through. */
    const served = (s: (typeof sent)[number]) =>
      (s.status >= 200 && s.status < 300) || (s.resolving === true && s.status === 404);
    let stopped = false;
    const note = async (route: Route, request: Promise<Sent>, resolving = false) => {
      const answer = await request;
      sent.push({ ...answer, route, ...(resolving ? { resolving } : {}) });
      return answer;
    };
    const cursor = new Map(callers.map((caller) => [caller, 0]));
    let turn = 0;
    const changing = runLoops({
      concurrency: options.callers,
      ratePerSecond: options.changeRate,
      until: () => stopped,
      step: async () => {
        const caller = callers[turn++ % callers.length]!;
        const bearer = bearers.get(caller)!;
        const { ids } = videos.get(caller)!;
        const videoId = ids[cursor.get(caller)! % ids.length]!;
        cursor.set(caller, cursor.get(caller)! + 1);
        const receipt = `/api/videos/${videoId}/deletion`;
        let state = believed.get(videoId) ?? 'active';
        if (state === 'unknown') {
          const answer = await note('receipt', send('receipt', 'GET', service.url, receipt, bearer), true);
          if (answer.status === 200) state = 'soft_deleted';
          else if (answer.status === 404) state = 'active';
          else return;
        }
        const answer =
          state === 'active'
            ? await note('delete', send('delete', 'DELETE', service.url, `/api/videos/${videoId}`, bearer))
            : await note(
                'restore',
                send('restore', 'POST', service.url, `/api/videos/${videoId}/restore`, bearer),
              );
        const to = state === 'active' ? 'soft_deleted' : 'active';
        changes.push({ videoId, to, sent: answer });
        believed.set(videoId, answer.status === 200 ? to : 'unknown');
        if (answer.status === 200 && to === 'soft_deleted') {
          await note('receipt', send('receipt', 'GET', service.url, receipt, bearer));
        }
      },
    });
    const searching = runLoops({
      concurrency: 2,
      ratePerSecond: options.searchRate,
      until: () => stopped,
      step: async () => {
        const caller = callers[Math.floor(Math.random() * callers.length)]!;
        const { titles } = videos.get(caller)!;
        const q = encodeURIComponent(titles[Math.floor(Math.random() * titles.length)]!);
        await note(
          'search',
          send('search', 'GET', service.url, `/api/videos/search?q=${q}&limit=20`, bearers.get(caller)!),
        );
      },
    });

    const blinks: Blink[] = [];
    const loadStarted = Date.now();
    await sleep(options.beforeMs);
    for (const [store, blinker] of Object.entries(blinkers(stores)) as [
      Store,
      ReturnType<typeof blinkers>[Store],
    ][]) {
      const stopping = Date.now();
      await blinker.stop();
      const down = Date.now();
      await sleep(options.blinkMs);
      const returning = Date.now();
      await blinker.start();
      blinks.push({ store, stopping, down, returning, back: Date.now() });
      await sleep(options.afterMs);
    }
    stopped = true;
    await Promise.all([changing, searching]);
    const loadEnded = Date.now();

    // Readiness, sampled by the proxy every second per API throughout.
    const probes = service.samples.filter((s) => s.at >= loadStarted && s.at <= loadEnded);
    const unready = probes.filter((s) => s.status !== 200);
    const degraded = probes.filter((s) => s.state === 'degraded').length;
    const unplaced = service.unplaced();
    const connectionErrors = service.connectionErrors();

    const improper = sent.filter((s) => !served(s) && !isProperUnavailable(s));
    const slow = sent.filter((s) => s.status !== 0 && s.doneAt - s.sentAt > ANSWER_BOUND_MS);

    // Per blink: what each route answered while the store was down, and how soon it was 2xx again.
    const perBlink = blinks.map((blink, i) => {
      const next = blinks[i + 1]?.stopping ?? loadEnded;
      const down = sent.filter((s) => s.sentAt >= blink.down && s.doneAt <= blink.returning);
      const unavailable = ROUTES.filter((route) => down.some((s) => s.route === route && s.status === 503));
      const byRoute = ROUTES.map((route) => `${route} ${tally(down.filter((s) => s.route === route))}`);
      const unexpected = down.filter(
        (s) => s.status === 503 && !MAY_BE_UNAVAILABLE[blink.store].includes(s.route),
      );
      const recovery = ROUTES.map((route) => {
        const after = sent.filter((s) => s.route === route && s.sentAt >= blink.back && s.doneAt <= next);
        const first = after.find(served);
        const late = after.filter((s) => s.sentAt >= blink.back + options.recoveryMs && !served(s));
        return { route, first: first ? first.doneAt - blink.back : undefined, late, tried: after.length };
      });
      return { blink, byRoute, unavailable, unexpected, recovery };
    });

    // What MySQL holds: each video's last change answered 200, unless a later one went unanswered.
    const lastChange = new Map<string, Change>();
    for (const change of changes) lastChange.set(change.videoId, change);
    const rows: { id: string; state: string }[] = await context.dataSource.query(
      'SELECT id, state FROM videos WHERE id IN (?)',
      [[...lastChange.keys()]],
    );
    const stateOf = new Map(rows.map((row) => [row.id, row.state]));
    const lost = [...lastChange.values()].filter(
      (change) => change.sent.status === 200 && stateOf.get(change.videoId) !== change.to,
    );

    const violations = [
      ...unready.map(
        (s) =>
          `readiness of ${s.backend} answered ${s.status || 'nothing'} at +${((s.at - loadStarted) / 1000).toFixed(1)} s`,
      ),
      ...service.removals.map(
        (r) => `${r.backend} left the proxy's pool at +${((r.at - loadStarted) / 1000).toFixed(1)} s`,
      ),
      ...(unplaced.length
        ? [`${unplaced.length} requests the proxy could not place (no ready backend)`]
        : []),
      ...(connectionErrors ? [`${connectionErrors} connection errors between the proxy and the APIs`] : []),
      ...improper.map((s) => `neither 2xx nor a proper 503: ${explain(s)}`),
      ...slow.map(
        (s) =>
          `answered after ${((s.doneAt - s.sentAt) / 1000).toFixed(1)} s: ${s.method} ${s.path} → ${s.status}`,
      ),
      ...perBlink.flatMap(({ blink, unexpected }) =>
        unexpected.map((s) => `503 while only ${blink.store} was down: ${explain(s)}`),
      ),
      ...perBlink.flatMap(({ blink, recovery }) =>
        recovery.flatMap(({ route, first, late, tried }) => [
          ...(tried > 0 && first === undefined
            ? [`${route} never answered 2xx after ${blink.store} returned`]
            : []),
          ...late.map(
            (s) =>
              `${route} not 2xx ${((s.sentAt - blink.back) / 1000).toFixed(1)} s after ${blink.store} returned: ${explain(s)}`,
          ),
        ]),
      ),
      ...lost.map(
        (change) =>
          `${change.to === 'soft_deleted' ? 'soft delete' : 'restore'} of ${change.videoId} answered 200 but MySQL holds ${stateOf.get(change.videoId) ?? 'no row'}`,
      ),
    ];
    const deletesOk = changes.filter((c) => c.to === 'soft_deleted' && c.sent.status === 200).length;
    const restoresOk = changes.filter((c) => c.to === 'active' && c.sent.status === 200).length;
    const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
    return {
      load: `${options.callers} callers with ${options.videosPerCaller} videos each through a Service-like proxy in front of 3 APIs (readiness every 1 s, 5 s timeout, failureThreshold 2; 1 worker): soft deletes and restores of their own videos at ${options.changeRate}/s (a receipt read after each soft delete), exact-title searches at ${options.searchRate}/s`,
      faults: `MySQL (own MariaDB, SIGTERM), Redis (own, SIGKILL), Elasticsearch (own node, SIGTERM) and S3 (connections refused in front of S3Proxy), one after another, each down ${seconds(options.blinkMs)}, then ${seconds(options.afterMs)} of load before the next`,
      expected:
        'readiness 200 throughout (no API leaves the pool, nothing unplaced, no connection error); every answer 2xx or 503 problem+json + Retry-After within 10 s; 503 only from the routes needing the missing store (MySQL: any; Elasticsearch: search; Redis, S3: none); every route 2xx again within ' +
        `${seconds(options.recoveryMs)} of its return; every soft delete and restore answered 200 is what MySQL holds`,
      observed:
        `readiness: ${probes.length} probes, ${unready.length} not 200, ${degraded} degraded; proxy: ${unplaced.length} unplaced, ${connectionErrors} connection errors; ` +
        perBlink
          .map(
            ({ blink, byRoute, unavailable, recovery }) =>
              `${blink.store} down: ${unavailable.length ? unavailable.join(', ') : 'no route'} 503 (${byRoute.join('; ')}), back in ${seconds(blink.back - blink.returning)}, 2xx again after ${recovery
                .map(({ route, first }) => `${route} ${first === undefined ? '–' : seconds(first)}`)
                .join(', ')}`,
          )
          .join('; ') +
        `; overall ${tally(sent)}; ${deletesOk} soft deletes and ${restoresOk} restores answered 200, ${lost.length} not in MySQL`,
      violations,
    };
  } finally {
    await proxy?.close();
    await system?.stop();
    await context?.close();
    await opened.s3?.close();
    await opened.redis?.stop();
    await opened.mysql?.destroy();
    await opened.es?.destroy();
  }
}
