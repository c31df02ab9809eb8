import type { JobQueues } from '../queue/job-queues.service';
import type { IndexWriter } from '../search/index-writer.service';
import { INDEX_WRITE_WAIT_MS, VideoIndexSyncService } from './video-index-sync.service';
import type { VideoEntity } from './video.entity';
import type { VideoRepository } from './video.repository';

/** The service passes rows through; the fakes read only the id and the version. */
const stored = { id: 'v', version: 7 } as VideoEntity;

function setUp({ indexDown = false, indexHangs = false } = {}) {
  const calls: string[] = [];
  /** With `indexHangs`, every write waits until released (an engine that does not answer). */
  const hang = { release: () => undefined as void };
  const hanging = new Promise<void>((resolve) => (hang.release = resolve));
  const rows = new Map([[stored.id, stored]]);
  const videos = { findByIds: (ids: string[]) => Promise.resolve(ids.flatMap((id) => rows.get(id) ?? [])) };
  const search = {
    indexVideos: (videos: VideoEntity[]) => {
      calls.push(`index ${videos.map((v) => `${v.id}@${v.version}`).join()}`);
      return indexDown ? Promise.reject(new Error('down')) : Promise.resolve({ indexed: 1, stale: 0 });
    },
    indexVideo: async (video: VideoEntity) => {
      if (!indexHangs) return void (await search.indexVideos([video]));
      calls.push(`index ${video.id}@${video.version}`);
      return hanging;
    },
    deleteDocument: (id: string) => {
      calls.push(`delete ${id}`);
      return Promise.resolve();
    },
  };
  const queues = {
    queueIndexRepair: (id: string, trigger: number) => {
      calls.push(`repair ${id}@${trigger}`);
      return Promise.resolve();
    },
  };
  const service = new VideoIndexSyncService(
    videos as unknown as VideoRepository,
    search as unknown as IndexWriter,
    queues as unknown as JobQueues,
  );
  return { service, calls, hang };
}

describe('VideoIndexSyncService', () => {
  it('writes a committed row, and queues a repair for its version when the index refuses', async () => {
    const up = setUp();
    await up.service.write(stored);
    expect(up.calls).toEqual(['index v@7']);
    const down = setUp({ indexDown: true });
    await down.service.write(stored);
    expect(down.calls).toEqual(['index v@7', 'repair v@7']);
  });

  it('leaves a write the index has not answered within INDEX_WRITE_WAIT_MS to a repair job', async () => {
    jest.useFakeTimers();
    try {
      const { service, calls, hang } = setUp({ indexHangs: true });
      let done = false;
      const writing = service.write(stored).then(() => (done = true));
      await jest.advanceTimersByTimeAsync(INDEX_WRITE_WAIT_MS - 1);
      expect(done).toBe(false);
      await jest.advanceTimersByTimeAsync(1);
      expect(done).toBe(true);
      expect(calls).toEqual(['index v@7', 'repair v@7']);
      await writing;
      hang.release();
    } finally {
      jest.useRealTimers();
    }
  });

  it('syncs a document from its row, or removes it when the row is gone', async () => {
    const { service, calls } = setUp();
    await service.syncVideo('v');
    await service.syncVideo('gone');
    expect(calls).toEqual(['index v@7', 'delete gone']);
  });
});
