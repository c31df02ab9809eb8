import { VideoState } from '@app/shared/video/video-state';
import { benchToken, type BenchContext } from './lib/kit';
import { httpLoad } from './lib/load';
import type { RunStats } from './lib/stats';

/** Soft deletes through the API, each request a different video; the videos are restored afterwards. */
export async function benchSoftDelete(
  context: BenchContext,
  apiUrl: string,
  { concurrency, amount }: { concurrency: number; amount: number },
): Promise<RunStats> {
  const rows: { id: string }[] = await context.dataSource.query(
    'SELECT id FROM videos WHERE state = ? ORDER BY id LIMIT ?',
    [VideoState.Active, amount],
  );
  const ids = rows.map((row) => row.id);
  const token = benchToken();
  try {
    return await httpLoad({
      url: apiUrl,
      method: 'DELETE',
      headers: { authorization: `Bearer ${token}` },
      request: (i) => ({ path: `/api/videos/${ids[i % ids.length]!}?retentionDays=30` }),
      concurrency,
      amount: ids.length,
    });
  } finally {
    await context.dataSource.query(
      "UPDATE videos SET state = 'active', deleted_at = NULL, purge_at = NULL, version = version + 1 WHERE id IN (?)",
      [ids],
    );
    await context.indexWriter.indexVideos(await context.videos.findByIds(ids));
  }
}
