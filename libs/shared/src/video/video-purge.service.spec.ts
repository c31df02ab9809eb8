import type { SearchIndexService } from '../search/search-index.service';
import type { StorageCleaner } from '../storage/storage-cleaner';
import type { NextState } from './video-lifecycle';
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
 * Rows in a map, with the repository's optimistic write. `beforeWrite` runs before a conditional
 * write lands: a concurrent change that moves the row's version.
 */
function setUp(rows: VideoLifecycleRow[], beforeWrite?: (table: Map<string, VideoLifecycleRow>) => void) {
  const table = new Map(rows.map((r) => [r.id, r]));
  const finished: FinishedDeletion[] = [];
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
    finishDeletions: (batch: FinishedDeletion[]) => {
      log.push('finish');
      finished.push(...batch);
      batch.forEach(({ video }) => table.delete(video.id));
      return Promise.resolve();
    },
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
  const service = new VideoPurgeService(
    videos as unknown as VideoRepository,
    search as unknown as SearchIndexService,
    cleaner as unknown as StorageCleaner,
  );
  return { service, table, finished, log };
}

describe('VideoPurgeService', () => {
  it('purges a due video: media, then the document, then row and audit as a retention deletion', async () => {
    const { service, table, finished, log } = setUp([row('v')]);
    expect(await service.purge('v')).toBe('purged');
    expect(log).toEqual(['media v', 'document v', 'finish']);
    expect(table.has('v')).toBe(false);
    expect(finished).toHaveLength(1);
    expect(finished[0]).toMatchObject({
      objectsDeleted: 2,
      video: { id: 'v', state: VideoState.Deleting, deletionReason: 'retention' },
    });
  });

  it('leaves a video whose purge date has not come, or that was restored', async () => {
    const { service, table, log } = setUp([
      row('later', { purgeAt: new Date(Date.now() + DAY) }),
      row('back', { state: VideoState.Active, deletedAt: null, purgeAt: null }),
    ]);
    expect(await service.purge('later')).toBe('not_due');
    expect(await service.purge('back')).toBe('restored');
    expect(await service.purge('gone')).toBe('already_gone');
    expect(log).toEqual([]);
    expect(table.get('later')!.state).toBe(VideoState.SoftDeleted);
  });

  it('finishes a deletion already under way, keeping who asked for it', async () => {
    const { service, finished } = setUp([
      row('v', { state: VideoState.Deleting, deletionReason: 'permanent', deletionRequestedBy: 'admin' }),
    ]);
    expect(await service.purge('v')).toBe('purged');
    expect(finished[0]!.video).toMatchObject({
      deletionReason: 'permanent',
      deletionRequestedBy: 'admin',
      version: 5,
    });
  });

  it('decides again when the row changed between its read and its claim (a restore wins)', async () => {
    const { service, table, log } = setUp([row('v')], (rows) =>
      rows.set('v', row('v', { state: VideoState.Active, deletedAt: null, purgeAt: null, version: 6 })),
    );
    expect(await service.purge('v')).toBe('restored');
    expect(log).toEqual([]);
    expect(table.get('v')!.state).toBe(VideoState.Active);
  });
});
