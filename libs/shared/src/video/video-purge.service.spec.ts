import type { DataSource, EntityManager } from 'typeorm';
import { recordedEvent, type NewEvent } from '../events/events';
import type { OutboxService } from '../events/outbox.service';
import type { IndexWriter } from '../search/index-writer.service';
import type { StorageCleaner } from '../storage/storage-cleaner';
import type { NextState } from './video-lifecycle';
import type { DeletionLedger } from './deletion-ledger.service';
import { VideoPurgeService } from './video-purge.service';
import { VideoState } from './video-state';
import type { FinishedDeletion, VideoLifecycleRow, VideoRepository } from './video.repository';

const DAY = 86_400_000;

function row(id: string, changes: Partial<VideoLifecycleRow> = {}): VideoLifecycleRow {
  return {
    id,
    authorId: 'owner',
    state: VideoState.SoftDeleted,
    deletedAt: new Date(Date.now() - 31 * DAY),
    purgeAt: new Date(Date.now() - DAY),
    deletionReason: null,
    deletionRequestedBy: null,
    version: 5,
    ...changes,
  };
}

/**
 * Rows, audit records and events in memory, with the repository's optimistic write. `beforeWrite`
 * runs before a conditional write lands: a concurrent change that moves the row's version.
 */
function setUp(rows: VideoLifecycleRow[], beforeWrite?: (table: Map<string, VideoLifecycleRow>) => void) {
  const table = new Map(rows.map((r) => [r.id, r]));
  const finished: FinishedDeletion[] = [];
  const events: NewEvent[] = [];
  const log: string[] = [];
  const videos = {
    findLifecycle: (id: string) => Promise.resolve(table.get(id)),
    applyState: (id: string, next: NextState, _now: Date, options: { expectedVersion?: number }) => {
      beforeWrite?.(table);
      beforeWrite = undefined;
      const current = table.get(id);
      if (!current || current.version !== options.expectedVersion) return Promise.resolve(false);
      table.set(id, { ...current, ...next, version: current.version + 1 });
      return Promise.resolve(true);
    },
    lockDeleting: (_manager: EntityManager, ids: string[]) =>
      Promise.resolve(new Set(ids.filter((id) => table.get(id)?.state === VideoState.Deleting))),
    finishDeletions: (_manager: EntityManager, batch: FinishedDeletion[]) => {
      log.push('finish');
      finished.push(...batch);
      batch.forEach(({ video }) => table.delete(video.id));
      return Promise.resolve();
    },
  };
  const outbox = {
    record: (_manager: EntityManager, recorded: NewEvent[]) => {
      // Each checked against its schema, as the real outbox does.
      recorded.forEach((event) => recordedEvent(event));
      events.push(...recorded);
      return Promise.resolve();
    },
  };
  const dataSource = {
    transaction: <T>(work: (manager: EntityManager) => Promise<T>) => work({} as EntityManager),
  };
  const cleaner = {
    deleteMedia: (id: string) => {
      log.push(`media ${id}`);
      return Promise.resolve(2);
    },
  };
  const search = {
    deleteDocument: (id: string) => {
      log.push(`document ${id}`);
      return Promise.resolve();
    },
  };
  const ledger = {
    record: (finished: FinishedDeletion) => {
      log.push(`ledger ${finished.video.id}`);
      return Promise.resolve();
    },
  };
  const service = new VideoPurgeService(
    dataSource as unknown as DataSource,
    videos as unknown as VideoRepository,
    search as unknown as IndexWriter,
    cleaner as unknown as StorageCleaner,
    outbox as unknown as OutboxService,
    ledger as unknown as DeletionLedger,
  );
  return { service, table, finished, events, log };
}

describe('VideoPurgeService', () => {
  it('purges a due video: media, then the document, then row, audit and events of a retention deletion', async () => {
    const { service, table, finished, events, log } = setUp([row('v')]);
    expect(await service.purge('v')).toBe('purged');
    expect(log).toEqual(['media v', 'document v', 'ledger v', 'finish']);
    expect(table.has('v')).toBe(false);
    expect(finished).toHaveLength(1);
    expect(finished[0]).toMatchObject({
      objectsDeleted: 2,
      video: { id: 'v', state: VideoState.Deleting, deletionReason: 'retention' },
    });
    expect(events.map((event) => [event.type, event.subject])).toEqual([
      ['video.deletion_started', 'v'],
      ['video.purged', 'v'],
    ]);
    expect(events[0]!.data).toMatchObject({ reason: 'retention', requestedBy: null });
    expect(events[1]!.data).toMatchObject({ reason: 'retention', objectsRemoved: 2, authorId: 'owner' });
  });

  it('leaves a video whose purge date has not come, or that was restored, and records nothing', async () => {
    const { service, table, events, log } = setUp([
      row('later', { purgeAt: new Date(Date.now() + DAY) }),
      row('back', { state: VideoState.Active, deletedAt: null, purgeAt: null }),
    ]);
    expect(await service.purge('later')).toBe('not_due');
    expect(await service.purge('back')).toBe('restored');
    expect(await service.purge('gone')).toBe('already_gone');
    expect(log).toEqual([]);
    expect(events).toEqual([]);
    expect(table.get('later')!.state).toBe(VideoState.SoftDeleted);
  });

  it('finishes a deletion already under way, keeping who asked for it, with no second start event', async () => {
    const { service, finished, events } = setUp([
      row('v', { state: VideoState.Deleting, deletionReason: 'permanent', deletionRequestedBy: 'admin' }),
    ]);
    expect(await service.purge('v')).toBe('purged');
    expect(finished[0]!.video).toMatchObject({
      deletionReason: 'permanent',
      deletionRequestedBy: 'admin',
      version: 5,
    });
    expect(events.map((event) => event.type)).toEqual(['video.purged']);
    expect(events[0]!.data).toMatchObject({ reason: 'permanent', requestedBy: 'admin' });
  });

  it('reports a deletion finished by two purges at once only once', async () => {
    const { service, events } = setUp([
      row('v', { state: VideoState.Deleting, deletionReason: 'permanent' }),
    ]);
    expect(await Promise.all([service.purge('v'), service.purge('v')])).toEqual(['purged', 'purged']);
    expect(events.map((event) => event.type)).toEqual(['video.purged']);
  });

  it('decides again when the row changed between its read and its claim (a restore wins)', async () => {
    const { service, table, events, log } = setUp([row('v')], (rows) =>
      rows.set('v', row('v', { state: VideoState.Active, deletedAt: null, purgeAt: null, version: 6 })),
    );
    expect(await service.purge('v')).toBe('restored');
    expect(log).toEqual([]);
    expect(events).toEqual([]);
    expect(table.get('v')!.state).toBe(VideoState.Active);
  });
});
