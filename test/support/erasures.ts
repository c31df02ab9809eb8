import { waitFor } from './processes';
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

/** What a durable operation's progress reads like (an erasure, a trash operation). */
export interface Progress {
  total: number;
  done: number;
  state: string;
}

/**
 * Follows a durable operation through the API (`url`, its GET) until it completes, checking on
 * every read that its progress only moves forward and never passes its total. Returns the
 * completed operation and every read.
 */
export async function followProgress<T extends Progress>(
  url: string,
  bearer: string,
  { timeoutMs, intervalMs = 200 }: { timeoutMs: number; intervalMs?: number },
): Promise<{ final: T; seen: T[] }> {
  const seen: T[] = [];
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const answer = await call<T>('GET', url, bearer).catch(() => undefined);
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
      throw new Error(`${url} not completed within ${timeoutMs} ms: ${JSON.stringify(seen.at(-1))}`);
    }
    await new Promise((done) => setTimeout(done, intervalMs));
  }
}

/** Follows an erasure until it completes (see followProgress). */
export function followErasure(
  api: string,
  erasureId: string,
  bearer: string,
  options: { timeoutMs: number; intervalMs?: number },
): Promise<{ final: ErasureBody; seen: ErasureBody[] }> {
  return followProgress<ErasureBody>(`${api}/api/erasures/${erasureId}`, bearer, options);
}

/**
 * Rows of the outbox that still say anything about an author: events naming them (column or body,
 * byte for byte), and deliveries about their videos or erasures (`subjects`), whose event is gone,
 * or whose receiver's answer names them.
 */
export async function outboxMentions(context: TestContext, authorId: string, subjects: string[]) {
  const [row] = await context.dataSource.query<{ events: string; deliveries: string }[]>(
    `SELECT
       (SELECT COUNT(*) FROM outbox_events WHERE author_id = ? OR body COLLATE utf8mb4_bin LIKE ?) AS events,
       (SELECT COUNT(*) FROM webhook_deliveries d
        WHERE d.subject IN (?) OR d.last_error COLLATE utf8mb4_bin LIKE ?
           OR NOT EXISTS (SELECT 1 FROM outbox_events o WHERE o.id = d.event_id)) AS deliveries`,
    [authorId, `%${JSON.stringify(authorId)}%`, subjects, `%${authorId}%`],
  );
  return { events: Number(row!.events), deliveries: Number(row!.deliveries) };
}

/** The author's events not yet marked erased: none once an erasure's completion has committed. */
export async function unerasedEvents(context: TestContext, authorId: string): Promise<number> {
  const [row] = await context.dataSource.query<{ n: string }[]>(
    'SELECT COUNT(*) AS n FROM outbox_events WHERE author_id = ? AND erased_at IS NULL',
    [authorId],
  );
  return Number(row!.n);
}

/**
 * Waits until the outbox says nothing about the author (see outboxMentions): the completion marks
 * the events erased in its transaction and deletes them right after its commit, so a reader that
 * saw `completed` may still find them for a moment. Returns what is left at the end either way.
 */
export function outboxForgets(
  context: TestContext,
  authorId: string,
  subjects: string[],
  timeoutMs: number,
): Promise<{ events: number; deliveries: number }> {
  const left = () => outboxMentions(context, authorId, subjects);
  return waitFor(
    `the outbox to forget ${authorId}`,
    async () => {
      const mentions = await left();
      return mentions.events + mentions.deliveries === 0 ? mentions : undefined;
    },
    { timeoutMs, intervalMs: 200 },
  ).catch(left);
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
