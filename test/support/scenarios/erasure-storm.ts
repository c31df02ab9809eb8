import { authorRemains, outboxForgets, type ErasureBody } from '../erasures';
import { sleep, waitFor, type RunningProcess } from '../processes';
import { startOwnRedis } from '../redis-server';
import { seedVideos } from '../seed';
import { call, startSystem, token } from '../system';
import { openTestContext } from '../test-context';
import { startWebhookReceiver, webhookEnv } from '../webhook-receiver';
import type { ScenarioReport } from './report';

export interface ErasureStormOptions {
  videos: number;
  /** BULK_BATCH_SIZE: videos per transaction of the erasure. */
  batchSize: number;
  /** Worker SIGKILLs, spread over the erasure's walk and its purges. */
  kills: number;
  /** Time between one worker's start and its kill. */
  killEveryMs: number;
  timeoutMs: number;
}

const AUTHOR = 'erasure-storm';

/**
 * A permanent erasure of one author's videos while the only worker is SIGKILLed again and again
 * and its Redis is flushed once (after the first kill, so the erasure's job and every schedule are
 * lost). The API keeps running and is asked again mid-way (it must answer the same erasure); its
 * progress is read all along. Expected: it completes once (one `erasure.completed`, as the webhook
 * receiver sees it), `done` only moves forward, never past `total`, and ends equal to it; every
 * video is purged exactly once, and no row, media object, index document or outbox row is left.
 */
export async function erasureStorm(options: ErasureStormOptions): Promise<ScenarioReport> {
  const context = await openTestContext();
  const redis = await startOwnRedis();
  const receiver = await startWebhookReceiver();
  const system = await startSystem(
    {
      ...webhookEnv([receiver.url]),
      OUTBOX_PRUNE_INTERVAL_MS: '1000',
      REDIS_URL: redis.url,
      PURGE_SWEEP_INTERVAL_MS: '1000',
      SCHEDULE_CHECK_INTERVAL_MS: '1000',
      BULK_BATCH_SIZE: String(options.batchSize),
    },
    { worker: false },
  );
  const admin = token('erasure-storm-admin', ['admin']);
  const violations: string[] = [];
  try {
    await context.reset();
    const ids = await seedVideos(context, options.videos, { authorId: AUTHOR, objectsPerVideo: 1 });
    const erase = () =>
      call<{ erasureId: string; videos: number }>(
        'DELETE',
        `${system.api}/api/authors/${AUTHOR}/videos?permanent=true`,
        admin,
      );
    const asked = await erase();
    if (asked.status !== 202 || asked.body.videos !== options.videos) {
      violations.push(`erasure not accepted as asked: ${asked.status} ${JSON.stringify(asked.body)}`);
    }
    const { erasureId } = asked.body;

    // Progress, read through the API every 100 ms for the whole run.
    const seen: ErasureBody[] = [];
    let reading = true;
    const reader = (async () => {
      // Reads go on while the worker dies and comes back: only the API answers them.
      while (reading) {
        const answer = await call<ErasureBody>('GET', `${system.api}/api/erasures/${erasureId}`, admin).catch(
          () => undefined,
        );
        if (answer?.status === 200) seen.push(answer.body);
        await sleep(100);
      }
    })();

    let worker: RunningProcess = await system.startWorker();
    const killedAt: string[] = [];
    let askedAgain: string | undefined;
    const progress = async () => {
      const [row] = await context.dataSource.query<{ state: string; done: number }[]>(
        'SELECT state, done FROM erasures WHERE id = ?',
        [erasureId],
      );
      const [audits] = await context.dataSource.query<{ n: number | string }[]>(
        'SELECT COUNT(*) AS n FROM deletion_audit WHERE author_id = ?',
        [AUTHOR],
      );
      const purged = Number(audits?.n ?? 0);
      return { state: row?.state ?? '?', done: row?.done ?? 0, purged, mark: (row?.done ?? 0) + purged };
    };
    let lastMark = 0;
    for (let kill = 0; kill < options.kills; kill += 1) {
      // Each kill waits for the worker to have made progress since the last one (the first: a
      // committed batch), then lands `killEveryMs` later: kills spread over the walk and the purges.
      await waitFor(
        'progress since the last kill',
        async () => ((await progress()).mark > lastMark ? true : undefined),
        {
          timeoutMs: 120_000,
          intervalMs: 20,
        },
      );
      if (kill > 0) await sleep(options.killEveryMs);
      const at = await progress();
      if (at.state === 'completed') break;
      await worker.stop('SIGKILL');
      lastMark = (await progress()).mark;
      killedAt.push(`${at.state} ${at.done}/${options.videos}, ${at.purged} purged`);
      if (kill === 0) await redis.flushAll();
      if (kill === 1) askedAgain = (await erase()).body.erasureId;
      worker = await system.startWorker();
    }
    const final = await waitFor(
      `erasure ${erasureId} to complete`,
      async () => {
        const answer = await call<ErasureBody>('GET', `${system.api}/api/erasures/${erasureId}`, admin);
        return answer.body.state === 'completed' ? answer.body : undefined;
      },
      { timeoutMs: options.timeoutMs, intervalMs: 500 },
    );
    reading = false;
    await reader;
    seen.push(final);

    const backwards = seen.filter((body, n) => n > 0 && body.done < seen[n - 1]!.done).length;
    const beyond = seen.filter((body) => body.done > body.total).length;
    // Every event is delivered, then the outbox forgets the author.
    const outboxLeft = await outboxForgets(context, AUTHOR, [...ids, erasureId], options.timeoutMs);
    const completions = [
      ...new Set(
        receiver.received
          .filter((event) => event.valid && event.type === 'erasure.completed')
          .map((event) => event.id),
      ),
    ];
    const erasures = await context.dataSource.query<{ n: number | string }[]>(
      'SELECT COUNT(*) AS n FROM erasures WHERE author_id = ?',
      [AUTHOR],
    );
    const left = await authorRemains(context, ids);
    const [lastPurge] = await context.dataSource.query<{ last: Date }[]>(
      'SELECT MAX(purged_at) AS last FROM deletion_audit WHERE video_id IN (?)',
      [ids],
    );

    if (final.done !== options.videos || final.total !== options.videos) {
      violations.push(`done/total ${final.done}/${final.total}, not ${options.videos}/${options.videos}`);
    }
    if (backwards > 0) violations.push(`done went back ${backwards} time(s)`);
    if (beyond > 0) violations.push(`done above total ${beyond} time(s)`);
    if (completions.length !== 1) violations.push(`${completions.length} erasure.completed events`);
    if (Number(erasures[0]!.n) !== 1) violations.push(`${erasures[0]!.n} erasures for the author`);
    if (askedAgain !== undefined && askedAgain !== erasureId) violations.push('asked again: another erasure');
    if (Object.keys(left.rows).length > 0) violations.push(`rows left: ${JSON.stringify(left.rows)}`);
    if (left.audits !== options.videos || !left.auditedOnce) violations.push(`${left.audits} audit records`);
    if (left.objects > 0) violations.push(`${left.objects} media objects left`);
    if (left.documents > 0) violations.push(`${left.documents} index documents left`);
    if (outboxLeft.events + outboxLeft.deliveries > 0)
      violations.push(`outbox left: ${JSON.stringify(outboxLeft)}`);
    if (lastPurge && Date.parse(final.completedAt!) < lastPurge.last.getTime()) {
      violations.push('completed before its last purge');
    }
    if (!killedAt.some((at) => at.startsWith('running'))) violations.push('no kill landed mid-walk');

    return {
      load: `permanent erasure of one author's ${options.videos} videos (1 object each), batches of ${options.batchSize}`,
      faults: `worker SIGKILL ${killedAt.length}× (at ${killedAt.join(', ')}), Redis FLUSHALL after the first; asked again mid-way`,
      expected:
        'completes once; done only rises, never past total, ends = total; every video purged once; no row, object, document or outbox row left',
      observed: `${completions.length} erasure.completed; done ${final.done}/${final.total} (${seen.length} reads, ${backwards} backwards, ${beyond} beyond total); asked again: ${askedAgain === erasureId ? 'same erasure' : String(askedAgain)}; ${left.audits} audited${left.auditedOnce ? ' once each' : ''}, ${Object.keys(left.rows).length} rows, ${left.objects} objects, ${left.documents} documents, ${outboxLeft.events + outboxLeft.deliveries} outbox rows`,
      violations,
    };
  } finally {
    await system.stop();
    await receiver.close();
    await redis.stop();
    await context.close();
  }
}
