import { call } from './system';
import type { TestContext } from './test-context';

/** An erasure as `GET /api/erasures/{erasureId}` answers it. */
export interface ErasureBody {
  erasureId: string;
  authorId: string;
  mode: 'soft' | 'permanent';
  total: number;
  done: number;
  state: 'running' | 'purging' | 'completed';
  startedAt: string;
  completedAt: string | null;
}

/**
 * Follows an erasure through the API until it completes, checking on every read that its progress
 * only moves forward and never passes its total. Returns the completed erasure and every read.
 */
export async function followErasure(
  api: string,
  erasureId: string,
  bearer: string,
  { timeoutMs, intervalMs = 200 }: { timeoutMs: number; intervalMs?: number },
): Promise<{ final: ErasureBody; seen: ErasureBody[] }> {
  const seen: ErasureBody[] = [];
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const answer = await call<ErasureBody>('GET', `${api}/api/erasures/${erasureId}`, bearer).catch(
      () => undefined,
    );
    if (answer?.status === 200) {
      const last = seen.at(-1);
      if (last && answer.body.done < last.done)
        throw new Error(`done went back: ${last.done} → ${answer.body.done}`);
      if (answer.body.done > answer.body.total)
        throw new Error(`done ${answer.body.done} > total ${answer.body.total}`);
      seen.push(answer.body);
      if (answer.body.state === 'completed') return { final: answer.body, seen };
    }
    if (Date.now() > deadline) {
      throw new Error(
        `erasure ${erasureId} not completed within ${timeoutMs} ms: ${JSON.stringify(seen.at(-1))}`,
      );
    }
    await new Promise((done) => setTimeout(done, intervalMs));
  }
}

/** The `erasure.completed` events recorded for an erasure (exactly one once it completed). */
export async function erasureCompletedEvents(context: TestContext, erasureId: string): Promise<unknown[]> {
  const rows: { body: string }[] = await context.dataSource.query(
    "SELECT body FROM outbox_events WHERE type = 'erasure.completed' AND subject = ?",
    [erasureId],
  );
  return rows.map((row) => JSON.parse(row.body) as unknown);
}

/** What is left of an author's videos in MySQL, the bucket and the index, and their audit records. */
export async function authorRemains(context: TestContext, ids: string[]) {
  const rows: { state: string; n: number | string }[] = await context.dataSource.query(
    'SELECT state, COUNT(*) AS n FROM videos WHERE id IN (?) GROUP BY state',
    [ids],
  );
  const audits: { video_id: string }[] = await context.dataSource.query(
    'SELECT video_id FROM deletion_audit WHERE video_id IN (?)',
    [ids],
  );
  const wanted = new Set(ids);
  const objects = (await context.allMediaKeys()).filter((key) => wanted.has(key.split('/')[1]!));
  const documents = (await context.indexedIds()).filter((id) => wanted.has(id));
  return {
    rows: Object.fromEntries(rows.map((row) => [row.state, Number(row.n)])),
    audits: audits.length,
    auditedOnce: new Set(audits.map((audit) => audit.video_id)).size === audits.length,
    objects: objects.length,
    documents: documents.length,
  };
}
