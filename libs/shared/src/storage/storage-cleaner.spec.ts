import { StorageCleaner } from './storage-cleaner';
import type { StorageService } from './storage.service';

/** A bucket in memory: listings by prefix, DeleteObjects that can fail chosen keys. */
function fakeStorage(keys: string[], failing = new Set<string>()) {
  const bucket = new Set(keys);
  const requests: string[][] = [];
  const storage = {
    async *listKeys(prefix: string) {
      const listed = [...bucket].filter((key) => key.startsWith(prefix));
      for (let i = 0; i < listed.length; i += 1_000) {
        await Promise.resolve();
        yield listed.slice(i, i + 1_000);
      }
    },
    async tryDeleteKeys(batch: string[]) {
      await Promise.resolve();
      requests.push(batch);
      const failed = new Map<string, string>();
      for (const key of batch) {
        if (failing.has(key)) failed.set(key, 'InternalError');
        else bucket.delete(key);
      }
      return failed;
    },
  };
  return { storage: storage as unknown as StorageService, bucket, requests };
}

const keysOf = (id: string, n: number) => Array.from({ length: n }, (_, i) => `videos/${id}/file-${i}`);

describe('StorageCleaner', () => {
  it('deletes the media of concurrent deletions in shared requests of at most 1,000 keys', async () => {
    const ids = ['a', 'b', 'c', 'd'];
    const { storage, bucket, requests } = fakeStorage([
      ...ids.flatMap((id) => keysOf(id, 400)),
      'videos/keep/x',
    ]);
    const cleaner = new StorageCleaner(storage);

    const counts = await Promise.all(ids.map((id) => cleaner.deleteMedia(id)));

    expect(counts).toEqual([400, 400, 400, 400]);
    expect([...bucket]).toEqual(['videos/keep/x']);
    expect(requests.length).toBeLessThan(ids.length);
    expect(Math.max(...requests.map((r) => r.length))).toBeLessThanOrEqual(1_000);
  });

  it('fails only the deletion whose key failed, and leaves that key for its retry', async () => {
    const { storage, bucket } = fakeStorage(
      [...keysOf('a', 3), ...keysOf('b', 3)],
      new Set(['videos/b/file-1']),
    );
    const cleaner = new StorageCleaner(storage);

    const [a, b] = await Promise.allSettled([cleaner.deleteMedia('a'), cleaner.deleteMedia('b')]);

    expect(a).toEqual({ status: 'fulfilled', value: 3 });
    expect(b.status).toBe('rejected');
    expect(String((b as PromiseRejectedResult).reason)).toContain('videos/b/file-1');
    expect([...bucket]).toEqual(['videos/b/file-1']);
  });
});
