import { randomUUID } from 'node:crypto';
import { ErasureRepository } from '@app/shared/erasure/erasure.repository';
import { JobQueues } from '@app/shared/queue/job-queues.service';
import { nextInLineReadySince } from '@app/shared/queue/queue-age';
import { QUEUES } from '@app/shared/queue/queues';
import { TrashOperationRepository } from '@app/shared/trash/trash-operation.repository';
import { DAY_MS } from '@app/shared/util/time';
import { sleep } from '../support/processes';
import { startOwnRedis, type OwnRedis } from '../support/redis-server';
import { seedTrash } from '../support/seed';
import { openTestContext, type TestContext } from '../support/test-context';

interface PlanRow {
  table: string;
  type: string;
  key: string | null;
  rows: number | string;
  Extra: string | null;
}

/**
 * The reads behind the metrics that StoredMetrics refreshes on its interval, against the real
 * stores: what they answer, and that each MySQL read goes through an index and stays bounded.
 */
describe('the stored metrics’ reads', () => {
  let context: TestContext;

  /** The statement `read` sends to MySQL, as MariaDB plans it. */
  async function planOf(read: () => Promise<unknown>): Promise<PlanRow[]> {
    const sent = jest.spyOn(context.dataSource, 'query');
    let calls: unknown[][];
    try {
      await read();
    } finally {
      // Restoring forgets the calls.
      calls = [...sent.mock.calls];
      sent.mockRestore();
    }
    const [sql, parameters] = calls.at(-1)! as [string, unknown[]?];
    return context.dataSource.query<PlanRow[]>(`EXPLAIN ${sql}`, parameters);
  }

  beforeAll(async () => {
    context = await openTestContext();
    await context.reset();
  }, 60_000);

  afterAll(() => context?.close());

  it('counts due purges up to the cap, in the (state, purge_at) index alone', async () => {
    const now = new Date();
    await seedTrash(context, 'author-later', 2_000, now);
    await seedTrash(context, 'author-due', 5, new Date(now.getTime() - 31 * DAY_MS));
    await expect(context.videos.countDuePurges(now, 10_000)).resolves.toBe(5);
    await expect(context.videos.countDuePurges(now, 3)).resolves.toBe(3);

    const plan = await planOf(() => context.videos.countDuePurges(now, 10_000));
    const videos = plan.find((row) => row.table === 'videos');
    expect(videos).toMatchObject({ type: 'range', key: 'idx_videos_state_purge_at' });
    expect(videos?.Extra).toMatch(/Using index/);
  });

  it('sums up unfinished erasures and trash operations by state, through each table’s state index', async () => {
    const erasures = context.get(ErasureRepository);
    const trash = context.get(TrashOperationRepository);
    const now = Date.now();
    const at = (minutesAgo: number) => new Date(now - minutesAgo * 60_000);
    // Completed operations outnumber unfinished ones, as they do in production (one per author at most).
    const erasure = (state: string, started: Date, updated: Date) => [
      randomUUID(),
      `author-${randomUUID()}`,
      'permanent',
      null,
      'admin',
      state,
      10,
      state === 'completed' ? 10 : 1,
      state === 'completed' ? null : `active-${randomUUID()}`,
      started,
      state === 'completed' ? updated : null,
      updated,
    ];
    await context.dataSource.query(
      `INSERT INTO erasures (id, author_id, mode, retention_days, requested_by, state, total, done, active_author,
         started_at, completed_at, updated_at) VALUES ?`,
      [
        [
          ...Array.from({ length: 500 }, () => erasure('completed', at(600), at(590))),
          erasure('running', at(30), at(2)),
          erasure('running', at(20), at(5)),
          erasure('purging', at(90), at(60)),
        ],
      ],
    );
    await context.dataSource.query(
      `INSERT INTO trash_operations (id, author_id, kind, requested_by, state, total, done, active_author,
         started_at, completed_at, updated_at) VALUES ?`,
      [
        [
          ...Array.from({ length: 500 }, (_, n) => [
            randomUUID(),
            `author-${n}`,
            'empty',
            `author-${n}`,
            'completed',
            3,
            3,
            null,
            at(600),
            at(590),
            at(590),
          ]),
          [
            randomUUID(),
            'author-t',
            'restore',
            'author-t',
            'running',
            3,
            1,
            'author-t',
            at(40),
            null,
            at(35),
          ],
        ],
      ],
    );

    const summary = await erasures.unfinishedSummary();
    expect(summary.sort((a, b) => a.state.localeCompare(b.state))).toEqual([
      { state: 'purging', count: 1, oldestStartedAt: at(90), stalestUpdatedAt: at(60) },
      { state: 'running', count: 2, oldestStartedAt: at(30), stalestUpdatedAt: at(5) },
    ]);
    await expect(trash.unfinishedSummary()).resolves.toEqual([
      { state: 'running', count: 1, oldestStartedAt: at(40), stalestUpdatedAt: at(35) },
    ]);
    await expect(trash.unfinished()).resolves.toHaveLength(1);
    // The sweeps read the same states.
    expect((await erasures.unfinished()).map((row) => row.state).sort()).toEqual([
      'purging',
      'running',
      'running',
    ]);

    for (const [repository, index] of [
      [erasures, 'idx_erasures_state'],
      [trash, 'idx_trash_operations_state'],
    ] as const) {
      const [plan] = await planOf(() => repository.unfinishedSummary());
      expect(plan).toMatchObject({ key: index });
      expect(['range', 'ref']).toContain(plan!.type);
    }
  });
});

describe('the age of the job next in line, on Redis', () => {
  let redis: OwnRedis;
  let queues: JobQueues;

  beforeAll(async () => {
    redis = await startOwnRedis();
    queues = new JobQueues({ REDIS_URL: redis.url, WEBHOOK_URLS: [] });
  }, 30_000);

  afterAll(async () => {
    await queues?.close();
    await redis?.stop();
  });

  it('is none for an empty line, and the oldest of the waiting and prioritized jobs otherwise', async () => {
    const index = queues.queue(QUEUES.index);
    await expect(nextInLineReadySince(index)).resolves.toBeNull();
    const first = await index.add('sync-video', { videoId: 'a' });
    await sleep(20);
    await index.add('sync-video', { videoId: 'b' });
    await expect(nextInLineReadySince(index)).resolves.toBe(first.timestamp);

    const deletion = queues.queue(QUEUES.deletion);
    await queues.ensureDeletionJob(randomUUID(), 0, undefined, { bulk: true });
    const bulk = (await deletion.getJobs(['prioritized']))[0]!;
    await sleep(20);
    await queues.ensureDeletionJob(randomUUID(), 0);
    await expect(nextInLineReadySince(deletion)).resolves.toBe(bulk.timestamp);
  });

  it('counts a delayed job that came due from the end of its delay, not from when it was added', async () => {
    const maintenance = queues.queue(QUEUES.maintenance);
    const delayed = await maintenance.add('reindex', {}, { delay: 300 });
    await sleep(400);
    // What a worker does once the delay has passed (none runs here).
    await maintenance.promoteJobs();
    await expect(nextInLineReadySince(maintenance)).resolves.toBe(delayed.timestamp + 300);
  });
});
