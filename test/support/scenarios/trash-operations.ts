import { sleep, waitFor, type RunningProcess } from '../processes';
import { startOwnRedis } from '../redis-server';
import { seedTrash } from '../seed';
import { call, startSystem, token } from '../system';
import { openTestContext } from '../test-context';
import { askTrashOperation, type TrashOperationBody } from '../trash-operations';
import type { ScenarioReport } from './report';

export interface TrashStormOptions {
  /** Soft-deleted videos in the author's trash, seeded straight into MySQL. */
  videos: number;
  /** BULK_BATCH_SIZE: videos per transaction of the operation. */
  batchSize: number;
  /** Worker SIGKILLs while the operation runs (fewer if it completes first). */
  kills: number;
  /** Time between one worker's start and its kill, after the first. */
  killEveryMs: number;
  /** PURGE_SWEEP_INTERVAL_MS: the purge and trash sweeps' interval (how soon a flushed operation resumes). */
  sweepIntervalMs: number;
  /** Flush Redis after the first kill: the operation's job and every schedule are lost. */
  flushRedis: boolean;
  /** Wait for every purge the empty started (rows gone, one audit record each), or stop at the operation's completion. */
  waitForPurges: boolean;
  timeoutMs: number;
}

const AUTHOR = 'trash-storm';
const BYSTANDER = 'trash-storm-bystander';

/**
 * A trash of `videos` soft-deleted videos emptied while the only worker is SIGKILLed again and
 * again (and, if asked, its Redis flushed after the first kill: the job and the schedules are
 * lost, and the trash sweep must find the operation in MySQL). The API keeps running, answers the
 * request at once, is asked again mid-way (it must answer the same operation), and its progress is
 * read all along. A video soft-deleted after the request and another author's trash must stay.
 * Expected: the operation completes once, `done` only moves forward, never past `total`, and ends
 * equal to it; every video's deletion starts exactly once (one `video.deletion_started` each, in
 * the outbox, written with its batch), and, when waited for, every one is purged once.
 */
export async function trashStorm(options: TrashStormOptions): Promise<ScenarioReport> {
  const context = await openTestContext();
  const redis = await startOwnRedis();
  const system = await startSystem(
    {
      REDIS_URL: redis.url,
      PURGE_SWEEP_INTERVAL_MS: String(options.sweepIntervalMs),
      SCHEDULE_CHECK_INTERVAL_MS: '1000',
      BULK_BATCH_SIZE: String(options.batchSize),
      WORKER_CONCURRENCY: '16',
    },
    { worker: false },
  );
  const owner = token(AUTHOR);
  const violations: string[] = [];
  try {
    await context.reset();
    const seedStarted = performance.now();
    await seedTrash(context, AUTHOR, options.videos);
    const bystanders = await seedTrash(context, BYSTANDER, 3);
    const seedSeconds = (performance.now() - seedStarted) / 1000;

    const askStarted = performance.now();
    const asked = await askTrashOperation(system.api, 'empty', owner);
    const askMs = performance.now() - askStarted;
    if (asked.status !== 202 || asked.body.videos !== options.videos || asked.body.state !== 'running') {
      violations.push(`empty not accepted as asked: ${asked.status} ${JSON.stringify(asked.body)}`);
    }
    const { operationId } = asked.body;
    // Deleted after the request: not part of it, so it stays in the trash.
    const [later] = await seedTrash(context, AUTHOR, 1, new Date(Date.now() + 60_000));

    // Progress, read through the API every 100 ms for the whole run: only the API answers them.
    const seen: TrashOperationBody[] = [];
    let reading = true;
    const read = () =>
      call<TrashOperationBody>('GET', `${system.api}/api/trash-operations/${operationId}`, owner);
    const reader = (async () => {
      while (reading) {
        const answer = await read().catch(() => undefined);
        if (answer?.status === 200) seen.push(answer.body);
        await sleep(100);
      }
    })();

    const progress = async () => {
      const [row] = await context.dataSource.query<{ state: string; done: number }[]>(
        'SELECT state, done FROM trash_operations WHERE id = ?',
        [operationId],
      );
      return { state: row?.state ?? '?', done: Number(row?.done ?? 0) };
    };
    const workStarted = performance.now();
    let worker: RunningProcess = await system.startWorker();
    const killedAt: string[] = [];
    let askedAgain: string | undefined;
    let lastDone = 0;
    for (let kill = 0; kill < options.kills; kill += 1) {
      // Each kill waits for a batch committed since the last one, then lands `killEveryMs` later
      // (the first at once): kills spread over the walk, each with progress before it.
      await waitFor(
        'progress since the last kill',
        async () => {
          const now = await progress();
          return now.done > lastDone || now.state === 'completed' ? true : undefined;
        },
        { timeoutMs: 120_000, intervalMs: 20 },
      );
      if (kill > 0) await sleep(options.killEveryMs);
      const at = await progress();
      if (at.state === 'completed') break;
      await worker.stop('SIGKILL');
      lastDone = (await progress()).done;
      killedAt.push(`${lastDone}/${options.videos}`);
      if (kill === 0 && options.flushRedis) await redis.flushAll();
      if (kill === 1) askedAgain = (await askTrashOperation(system.api, 'empty', owner)).body.operationId;
      worker = await system.startWorker();
    }
    const final = await waitFor(
      `trash operation ${operationId} to complete`,
      async () => {
        const answer = await read();
        return answer.body.state === 'completed' ? answer.body : undefined;
      },
      { timeoutMs: options.timeoutMs, intervalMs: 250 },
    );
    const workSeconds = (performance.now() - workStarted) / 1000;
    reading = false;
    await reader;
    seen.push(final);

    const backwards = seen.filter((body, n) => n > 0 && body.done < seen[n - 1]!.done).length;
    const beyond = seen.filter((body) => body.done > body.total).length;
    const intermediate = seen.filter((body) => body.done > 0 && body.done < body.total).length;
    const [started] = await context.dataSource.query<{ events: string; videos: string }[]>(
      `SELECT COUNT(*) AS events, COUNT(DISTINCT subject) AS videos FROM outbox_events
       WHERE type = 'video.deletion_started' AND author_id = ?`,
      [AUTHOR],
    );
    const events = Number(started!.events);
    const startedVideos = Number(started!.videos);
    const operations = await context.dataSource.query<{ n: string }[]>(
      'SELECT COUNT(*) AS n FROM trash_operations WHERE author_id = ?',
      [AUTHOR],
    );
    const statesOf = async (authorId: string) => {
      const rows = await context.dataSource.query<{ state: string; n: string }[]>(
        'SELECT state, COUNT(*) AS n FROM videos WHERE author_id = ? GROUP BY state',
        [authorId],
      );
      return Object.fromEntries(rows.map((row) => [row.state, Number(row.n)]));
    };
    const audits = async () => {
      const [row] = await context.dataSource.query<{ n: string; videos: string }[]>(
        'SELECT COUNT(*) AS n, COUNT(DISTINCT video_id) AS videos FROM deletion_audit WHERE author_id = ?',
        [AUTHOR],
      );
      return { records: Number(row!.n), videos: Number(row!.videos) };
    };
    const atCompletion = { states: await statesOf(AUTHOR), audits: await audits() };

    let purgeSeconds: number | undefined;
    if (options.waitForPurges) {
      await waitFor(
        'every purge the empty started',
        async () => ((await statesOf(AUTHOR)).deleting ?? 0) === 0 || undefined,
        { timeoutMs: options.timeoutMs, intervalMs: 1_000 },
      ).catch(() => undefined);
      purgeSeconds = (performance.now() - workStarted) / 1000;
    }
    const end = { states: await statesOf(AUTHOR), audits: await audits() };
    const laterState = (
      await context.dataSource.query<{ state: string }[]>('SELECT state FROM videos WHERE id = ?', [later])
    )[0]?.state;

    if (final.done !== options.videos || final.total !== options.videos) {
      violations.push(`done/total ${final.done}/${final.total}, not ${options.videos}/${options.videos}`);
    }
    if (final.kind !== 'empty' || !final.completedAt) violations.push(`final: ${JSON.stringify(final)}`);
    if (backwards > 0) violations.push(`done went back ${backwards} time(s)`);
    if (beyond > 0) violations.push(`done above total ${beyond} time(s)`);
    if (Number(operations[0]!.n) !== 1) violations.push(`${operations[0]!.n} operations for the author`);
    if (askedAgain !== undefined && askedAgain !== operationId)
      violations.push('asked again: another operation');
    if (events !== options.videos || startedVideos !== options.videos) {
      violations.push(`${events} video.deletion_started events for ${startedVideos} videos`);
    }
    // Every video left the trash: being deleted or already purged, none still soft-deleted but `later`.
    if ((atCompletion.states.soft_deleted ?? 0) !== 1 || laterState !== 'soft_deleted') {
      violations.push(
        `in the trash at completion: ${JSON.stringify(atCompletion.states)}, later ${laterState}`,
      );
    }
    if (end.audits.records !== end.audits.videos) violations.push(`audits: ${JSON.stringify(end.audits)}`);
    if (
      options.waitForPurges &&
      (end.states.deleting !== undefined || end.audits.videos !== options.videos)
    ) {
      violations.push(`purges unfinished: ${JSON.stringify(end.states)}, ${end.audits.videos} audited`);
    }
    const untouched = await statesOf(BYSTANDER);
    if (untouched.soft_deleted !== bystanders.length)
      violations.push(`bystander: ${JSON.stringify(untouched)}`);
    if (killedAt.length === 0) violations.push('no kill landed while the operation ran');
    if (intermediate === 0) violations.push('no read saw progress mid-way');
    if (askMs > 2_000) violations.push(`the request took ${Math.round(askMs)} ms`);

    const purged = options.waitForPurges
      ? `${end.audits.videos.toLocaleString('en-US')} purged (one audit record each) ${purgeSeconds!.toFixed(0)} s after the worker started`
      : `${atCompletion.audits.videos.toLocaleString('en-US')} already purged at completion, the rest left to the deletion jobs`;
    return {
      load: `empty a trash of ${options.videos.toLocaleString('en-US')} soft-deleted videos (seeded by SQL in ${seedSeconds.toFixed(1)} s), batches of ${options.batchSize}, 16 purge jobs at a time`,
      faults: `sweeps every ${options.sweepIntervalMs / 1000} s; worker SIGKILL ${killedAt.length}× (at done ${killedAt.join(', ')})${options.flushRedis ? ', Redis FLUSHALL after the first' : ''}; asked again mid-way`,
      expected:
        '202 at once; completes once; done only rises, never past total, ends = total; one video.deletion_started per video; ' +
        'a video deleted after the request and another author’s trash untouched' +
        (options.waitForPurges ? '; every video purged once' : ''),
      observed:
        `202 in ${Math.round(askMs)} ms; done ${final.done}/${final.total} in ${workSeconds.toFixed(0)} s ` +
        `(${seen.length} reads, ${intermediate} mid-way, ${backwards} backwards, ${beyond} beyond total); ` +
        `asked again: ${askedAgain === operationId ? 'same operation' : String(askedAgain)}; ` +
        `${events.toLocaleString('en-US')} deletion_started for ${startedVideos.toLocaleString('en-US')} videos; ${purged}`,
      violations,
    };
  } finally {
    await system.stop();
    await redis.stop();
    await context.close();
  }
}
