import { DeletionAuditRepository } from '@app/shared/video/deletion-audit.repository';
import { ledgerKey, LEDGER_PREFIX } from '@app/shared/video/deletion-ledger.service';
import { VideoState } from '@app/shared/video/video-state';
import type { FinishedDeletion } from '@app/shared/video/video.repository';
import { waitFor } from '../support/processes';
import { remains, seedVideos } from '../support/seed';
import { openTestContext, type TestContext } from '../support/test-context';

/**
 * What an erasure must not leave behind (docs/contract.md §10.4) in the stores it does not own:
 * the deletion ledger in S3, and the deleted documents in the engine's segments.
 */
describe('the deletion ledger names no person, and still re-applies a forgotten deletion', () => {
  let context: TestContext;

  beforeAll(async () => {
    context = await openTestContext();
  }, 60_000);

  beforeEach(() => context.reset(), 60_000);

  afterAll(() => context.close());

  /** The video's row as a purge finishes it, by `requestedBy`. */
  async function finished(id: string, requestedBy: string): Promise<FinishedDeletion> {
    const video = (await context.videos.findLifecycle(id))!;
    const deletedAt = new Date(Date.now() - 60_000);
    return {
      video: {
        ...video,
        state: VideoState.Deleting,
        deletionReason: 'permanent',
        deletionRequestedBy: requestedBy,
        deletedAt,
        purgeAt: deletedAt,
      },
      objectsDeleted: 2,
      purgedAt: new Date(),
    };
  }

  const ledgerTexts = async () => {
    const texts: string[] = [];
    for await (const keys of context.storage.listKeys(LEDGER_PREFIX))
      for (const key of keys) texts.push((await context.storage.getText(key))!);
    return texts;
  };
  const audit = (id: string) => context.get(DeletionAuditRepository).findByVideoId(id);

  it('writes no author and no requester; a replay takes them from the row a backup brought back', async () => {
    const [id] = await seedVideos(context, 1, { authorId: 'ledger-author-ü' });
    const deletion = await finished(id!, 'ledger-admin');
    await context.ledger.record(deletion);
    const [text] = await ledgerTexts();
    expect(text).not.toContain('ledger-author');
    expect(text).not.toContain('ledger-admin');
    expect(JSON.parse(text!)).toMatchObject({ videoId: id, reason: 'permanent', objectsDeleted: 2 });

    // MySQL restored from a backup taken before the purge: the row is back, its audit record is not.
    expect(await context.ledger.replay()).toBe(1);
    expect(await remains(context, id!)).toMatchObject({ row: null, objects: 0, document: null });
    expect(await audit(id!)).toMatchObject({
      authorId: 'ledger-author-ü',
      reason: 'permanent',
      requestedBy: null,
      objectsDeleted: 2,
      purgedAt: deletion.purgedAt,
      deletedAt: deletion.video.deletedAt,
    });
    expect(await context.ledger.replay()).toBe(0);
  });

  it('re-applies a deletion whose row the backup lacks too, with no author', async () => {
    const [id] = await seedVideos(context, 1, { authorId: 'ledger-gone' });
    const deletion = await finished(id!, 'ledger-gone');
    await context.ledger.record(deletion);
    await context.dataSource.query('DELETE FROM videos WHERE id = ?', [id]);
    expect(await context.ledger.replay()).toBe(1);
    expect(await audit(id!)).toMatchObject({ authorId: '', requestedBy: null, reason: 'permanent' });
  });

  it('scrubs an entry written before (author and requester inside), once, and replays it as before', async () => {
    const ids = await seedVideos(context, 3, { authorId: 'ledger-old' });
    const deletions = await Promise.all(ids.map((id) => finished(id, 'ledger-old-admin')));
    // As the ledger wrote its entries before: the whole finished deletion.
    for (const deletion of deletions)
      await context.storage.putObject(ledgerKey(deletion), JSON.stringify(deletion), 'application/json');
    await context.ledger.record(await finished(ids[2]!, 'ledger-old-admin'));
    expect((await ledgerTexts()).filter((text) => text.includes('ledger-old'))).toHaveLength(3);

    expect(await context.ledger.scrub()).toEqual({ read: 4, rewritten: 3 });
    expect((await ledgerTexts()).filter((text) => text.includes('ledger-old'))).toEqual([]);
    expect(await context.ledger.scrub()).toEqual({ read: 4, rewritten: 0 });

    expect(await context.ledger.replay()).toBe(3);
    for (const id of ids) {
      expect(await remains(context, id)).toMatchObject({ row: null, objects: 0, document: null });
      expect(await audit(id)).toMatchObject({ authorId: 'ledger-old', objectsDeleted: 2 });
    }
  });
});

describe('IndexAdmin.expungeDeletes', () => {
  let context: TestContext;

  beforeAll(async () => {
    context = await openTestContext();
    await context.reset();
  }, 60_000);

  afterAll(() => context.close());

  it('drops every deleted or replaced document from the segments, and keeps the others', async () => {
    const ids = await seedVideos(context, 40, { authorId: 'expunge-author', objectsPerVideo: 0 });
    // Replaced documents (a new version) are deleted ones too, in Lucene.
    await context.indexWriter.indexVideos(await context.videos.findByIds(ids.slice(0, 5)));
    await context.indexWriter.deleteDocuments(ids.slice(30));
    await context.indexAdmin.refresh();
    expect(await context.indexAdmin.deletedDocuments()).toBeGreaterThan(0);

    // Elasticsearch keeps the newest deletions for its copies' history for some seconds: a run
    // leaves those, and the next takes them.
    const runs = await waitFor(
      'no deleted document left',
      async () => {
        const run = await context.indexAdmin.expungeDeletes();
        return run.deletedAfter === 0 ? run : undefined;
      },
      { timeoutMs: 90_000, intervalMs: 2_000 },
    );
    expect(runs.indices).toHaveLength(1);
    expect(await context.indexAdmin.deletedDocuments()).toBe(0);
    expect((await context.indexedIds()).sort()).toEqual(ids.slice(0, 30).sort());
    // Nothing left to do: a run with no deleted document merges nothing.
    expect(await context.indexAdmin.expungeDeletes()).toMatchObject({ deletedBefore: 0, deletedAfter: 0 });
  }, 120_000);
});
