import type { EntityManager } from 'typeorm';
import { recordedEvent, type NewEvent } from '../events/events';
import type { OutboxService } from '../events/outbox.service';
import type { JobQueues } from '../queue/job-queues.service';
import { fakeTransactions } from '@test/fakes/fake-transactions';
import { fakeVideo } from '@test/fakes/fake-videos';
import type { VideoIndexSyncService } from './video-index-sync.service';
import type { Actor, NextState } from './video-lifecycle';
import { VideoLifecycleService } from './video-lifecycle.service';
import { VideoState } from './video-state';
import type { VideoEntity } from './video.entity';
import type { VideoRepository } from './video.repository';

const DAY = 86_400_000;
const owner: Actor = { sub: 'owner', roles: [] };
const stranger: Actor = { sub: 'stranger', roles: [] };

const video = fakeVideo;

/** Rows and recorded events in memory; a transaction that throws leaves both as they were. */
function fakeVideos(rows: VideoEntity[], { outboxDown = false } = {}) {
  const table = new Map(rows.map((row) => [row.id, row]));
  const events: NewEvent[] = [];
  const outbox = {
    record: (_manager: EntityManager, recorded: NewEvent[]) => {
      // Each checked against its schema, as the real outbox does.
      recorded.forEach((event) => recordedEvent(event));
      events.push(...recorded);
      return outboxDown ? Promise.reject(new Error('outbox insert failed')) : Promise.resolve();
    },
  };
  const repository = {
    lockById: (_manager: EntityManager, id: string) => Promise.resolve(table.get(id) ?? null),
    applyState: (id: string, next: NextState, now: Date) => {
      const row = table.get(id)!;
      table.set(id, { ...row, ...next, version: row.version + 1, updatedAt: now });
      return Promise.resolve(true);
    },
  };
  const dataSource = fakeTransactions(table, events);
  return { table, events, repository, dataSource, outbox };
}

function fakeQueues({ hang = false } = {}) {
  const calls: string[] = [];
  const answer = () => (hang ? new Promise<void>(() => undefined) : Promise.resolve());
  const queues = {
    ensureDeletionJob: (id: string, delayMs: number) => {
      calls.push(`ensure ${id} ${delayMs}`);
      return answer();
    },
    cancelDeletionJob: (id: string) => {
      calls.push(`cancel ${id}`);
      return answer();
    },
  };
  return { calls, queues };
}

function setUp(rows: VideoEntity[], options: { hang?: boolean; outboxDown?: boolean } = {}) {
  const videos = fakeVideos(rows, options);
  const queue = fakeQueues(options);
  const indexed: VideoEntity[] = [];
  const index = {
    write: (row: VideoEntity) => {
      indexed.push(row);
      return Promise.resolve();
    },
  };
  const service = new VideoLifecycleService(
    videos.dataSource,
    videos.repository as unknown as VideoRepository,
    queue.queues as unknown as JobQueues,
    index as unknown as VideoIndexSyncService,
    videos.outbox as unknown as OutboxService,
    { RETENTION_DEFAULT_DAYS: 30 },
  );
  return { service, table: videos.table, events: videos.events, calls: queue.calls, indexed };
}

describe('VideoLifecycleService', () => {
  it('soft-deletes: commits the state and its event, schedules the purge at its date and indexes the new version', async () => {
    const { service, table, events, calls, indexed } = setUp([video('v')]);
    const result = await service.softDelete('v', owner, 2);
    expect(result).toMatchObject({ kind: 'ok', id: 'v', state: { state: VideoState.SoftDeleted } });
    const row = table.get('v')!;
    expect(row.state).toBe(VideoState.SoftDeleted);
    expect(row.purgeAt!.getTime() - row.deletedAt!.getTime()).toBe(2 * DAY);
    expect(calls).toHaveLength(1);
    const delay = Number(calls[0]!.split(' ')[2]);
    expect(delay).toBeGreaterThan(2 * DAY - 5_000);
    expect(delay).toBeLessThanOrEqual(2 * DAY);
    expect(indexed).toEqual([
      expect.objectContaining({ id: 'v', version: 4, state: VideoState.SoftDeleted }),
    ]);
    expect(events).toEqual([
      {
        type: 'video.soft_deleted',
        subject: 'v',
        occurredAt: row.deletedAt,
        data: {
          videoId: 'v',
          authorId: 'owner',
          requestedBy: 'owner',
          deletedAt: row.deletedAt!.toISOString(),
          purgeAt: row.purgeAt!.toISOString(),
        },
      },
    ]);
  });

  it('records a new soft_deleted event when a second soft delete moves the purge date', async () => {
    const { service, table, events } = setUp([video('v')]);
    await service.softDelete('v', owner, 5);
    await service.softDelete('v', owner, 5);
    await service.softDelete('v', owner, 1);
    expect(events.map((event) => event.type)).toEqual(['video.soft_deleted', 'video.soft_deleted']);
    expect(events[1]!.data).toMatchObject({ purgeAt: table.get('v')!.purgeAt!.toISOString() });
  });

  it('uses the configured default retention when none is given', async () => {
    const { service, table } = setUp([video('v')]);
    await service.softDelete('v', owner, undefined);
    const row = table.get('v')!;
    expect(row.purgeAt!.getTime() - row.deletedAt!.getTime()).toBe(30 * DAY);
  });

  it('permanently deletes: the row says deleting, the deletion job runs at once, deletion_started is recorded', async () => {
    const { service, table, events, calls } = setUp([video('v')]);
    expect(await service.permanentDelete('v', owner)).toMatchObject({ kind: 'ok' });
    expect(table.get('v')).toMatchObject({
      state: VideoState.Deleting,
      deletionReason: 'permanent',
      deletionRequestedBy: 'owner',
    });
    expect(calls).toEqual(['ensure v 0']);
    expect(events).toEqual([
      expect.objectContaining({
        type: 'video.deletion_started',
        data: expect.objectContaining({ videoId: 'v', reason: 'permanent', requestedBy: 'owner' }) as unknown,
      }),
    ]);
  });

  it('restores: the row is active again and the pending purge is cancelled', async () => {
    const deletedAt = new Date(Date.now() - DAY);
    const { service, table, events, calls } = setUp([
      video('v', {
        state: VideoState.SoftDeleted,
        deletedAt,
        purgeAt: new Date(deletedAt.getTime() + DAY * 30),
      }),
    ]);
    expect(await service.restore('v', owner)).toMatchObject({
      kind: 'ok',
      state: { state: VideoState.Active },
    });
    expect(table.get('v')).toMatchObject({ state: VideoState.Active, deletedAt: null, purgeAt: null });
    expect(calls).toEqual(['cancel v']);
    expect(events.map((event) => [event.type, event.subject])).toEqual([['video.restored', 'v']]);
  });

  it('changes nothing and records nothing for a stranger, an unknown id or a repeat', async () => {
    const { service, table, events, calls, indexed } = setUp([video('v')]);
    expect(await service.softDelete('v', stranger, undefined)).toEqual({ kind: 'forbidden' });
    expect(await service.restore('missing', owner)).toEqual({ kind: 'not_found' });
    expect(await service.restore('v', owner)).toMatchObject({
      kind: 'ok',
      state: { state: VideoState.Active },
    });
    expect(table.get('v')!.version).toBe(3);
    expect(calls).toEqual([]);
    expect(indexed).toEqual([]);
    expect(events).toEqual([]);
  });

  it('commits no change whose event cannot be recorded, and queues nothing for it', async () => {
    const { service, table, events, calls, indexed } = setUp([video('v')], { outboxDown: true });
    await expect(service.softDelete('v', owner, undefined)).rejects.toThrow('outbox insert failed');
    expect(table.get('v')).toMatchObject({ state: VideoState.Active, version: 3 });
    expect(events).toEqual([]);
    expect(calls).toEqual([]);
    expect(indexed).toEqual([]);
  });

  it('answers once committed even when the queue never answers (the sweep takes over)', async () => {
    const { service, table, indexed } = setUp([video('v')], { hang: true });
    const started = Date.now();
    expect(await service.permanentDelete('v', owner)).toMatchObject({ kind: 'ok' });
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(table.get('v')!.state).toBe(VideoState.Deleting);
    expect(indexed).toHaveLength(1);
  });
});
