import { errors, type estypes } from '@elastic/elasticsearch';
import { IndexReconciler } from '@app/worker/index/index-reconciler.service';
import { ReindexService } from '@app/worker/index/reindex.service';
import { isUnavailable } from '@app/api/search/engine/search-errors';
import { buildSearchRequests } from '@app/api/search/engine/search-query.builder';
import { seedVideos } from '../support/seed';
import { openTestContext, type TestContext } from '../support/test-context';

describe('index sync', () => {
  let context: TestContext;

  beforeAll(async () => {
    context = await openTestContext();
  }, 60_000);

  beforeEach(() => context.reset());

  afterAll(() => context.close());

  const versionOf = async (id: string) => (await context.indexInventory.versions([id])).get(id);

  /** Changes an index's settings straight through Elasticsearch's API, as an operator would. */
  const putSettings = (index: string, settings: object) =>
    fetch(`${context.config.ELASTICSEARCH_URL}/${index}/_settings`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(settings),
      signal: AbortSignal.timeout(10_000),
    });

  it('never lets an older write overwrite a newer one (external versions)', async () => {
    const [id] = await seedVideos(context, 1, { title: () => 'Versioned talk' });
    const [row] = await context.videos.findByIds([id!]);
    await context.indexWriter.indexVideos([{ ...row!, title: 'Newer title', version: row!.version + 5 }]);
    const outcome = await context.indexWriter.indexVideos([{ ...row!, title: 'Older title' }]);
    expect(outcome).toEqual({ indexed: 0, stale: 1 });
    expect((await context.indexInventory.document(id!))?.title).toBe('Newer title');
  });

  it('loads row batches in bulks: older versions count as stale, a document the index refuses stops the load', async () => {
    const ids = await seedVideos(context, 30);
    const rows = await context.videos.findByIds(ids);
    const index = context.indexAdmin.newIndexName();
    await context.indexAdmin.createIndex(index);
    const inBatches = (videos: typeof rows) => [videos.slice(0, 10), videos.slice(10)];
    try {
      expect(await context.indexWriter.indexAll(inBatches(rows), index)).toEqual({ indexed: 30, stale: 0 });
      // The same versions again: each one the index already holds is a conflict, not a failure.
      expect(await context.indexWriter.indexAll(inBatches(rows), index)).toEqual({ indexed: 0, stale: 30 });
      expect((await putSettings(index, { 'index.blocks.write': true })).ok).toBe(true);
      const newer = rows.map((row) => ({ ...row, version: row.version + 1 }));
      await expect(context.indexWriter.indexAll(inBatches(newer), index)).rejects.toThrow(
        /Bulk indexing failed for \d+ document\(s\): .*cluster_block_exception/,
      );
    } finally {
      await putSettings(index, { 'index.blocks.write': null });
      await context.indexAdmin.deleteIndex(index);
    }
  }, 30_000);

  it('merges a loaded index that has more segments than one tier of the merge policy, and leaves one with fewer', async () => {
    const ids = await seedVideos(context, 12);
    const rows = await context.videos.findByIds(ids);
    const segments = async (index: string) => {
      const response = await fetch(
        `${context.config.ELASTICSEARCH_URL}/${index}/_stats/segments?filter_path=_all.primaries.segments.count`,
        { signal: AbortSignal.timeout(10_000) },
      );
      const body = (await response.json()) as { _all: { primaries: { segments: { count: number } } } };
      return body._all.primaries.segments.count;
    };
    // One segment per refresh: each video written and made visible on its own, and the merge
    // policy told to leave up to 50 alone, so that only `finishLoading` merges.
    const loaded = async (count: number) => {
      const index = context.indexAdmin.newIndexName();
      await context.indexAdmin.createIndex(index, { loading: true });
      expect((await putSettings(index, { 'index.merge.policy.segments_per_tier': 50 })).ok).toBe(true);
      for (const row of rows.slice(0, count)) {
        await context.indexWriter.indexAll([[row]], index);
        await context.indexAdmin.refresh(index);
      }
      return index;
    };
    const many = await loaded(12);
    const few = await loaded(3);
    try {
      expect(await segments(many)).toBe(12);
      await context.indexAdmin.finishLoading(many);
      expect(await segments(many)).toBe(1);
      await context.indexAdmin.finishLoading(few);
      expect(await segments(few)).toBe(3);
    } finally {
      await context.indexAdmin.deleteIndex(many);
      await context.indexAdmin.deleteIndex(few);
    }
  }, 60_000);

  it('refuses to write through a missing alias instead of creating an index under its name', async () => {
    const [id] = await seedVideos(context, 1);
    const rows = await context.videos.findByIds([id!]);
    for (const index of await context.indexAdmin.aliasTargets()) await context.indexAdmin.deleteIndex(index);
    await expect(context.indexWriter.indexVideos(rows)).rejects.toThrow(/index_not_found/);
    expect(await context.indexAdmin.indexExists(context.indexAdmin.alias)).toBe(false);
    await context.indexAdmin.ensureAlias();
    expect(await context.indexAdmin.aliasTargets()).toHaveLength(1);
  });

  it('the reconciler rewrites missing and stale documents and removes orphans', async () => {
    const [stale, fine] = await seedVideos(context, 2);
    // A row whose index write never happened (the index was down, say).
    const missing = '5d0c7a9e-2b1f-4c3d-8e4f-a1b2c3d4e5f6';
    await context.videos.upsertContent([
      {
        id: missing,
        authorId: 'a',
        title: 'Never indexed',
        description: '',
        tags: [],
        speakers: [],
        event: null,
        publishedAt: null,
        language: 'und',
      },
    ]);
    await context.dataSource.query(
      "UPDATE videos SET title = 'Changed behind the index', version = version + 1 WHERE id = ?",
      [stale],
    );
    const orphan = '0b6f1a2c-3d4e-4f50-8a61-7b8c9d0e1f2a';
    // A document without a row (its purge lost the race with a late index write, say).
    const [fineRow] = await context.videos.findByIds([fine!]);
    await context.indexWriter.indexVideos([{ ...fineRow!, id: orphan, title: 'Ghost' }]);
    await context.indexAdmin.refresh();

    const result = await context.get(IndexReconciler).reconcile(2);
    expect(result).toEqual({ replayed: 0, checked: 3, missing: 1, stale: 1, ahead: 0, removed: 1 });
    await context.indexAdmin.refresh();

    const rows = await context.videos.findByIds([missing, stale!, fine!]);
    for (const row of rows) expect(await versionOf(row.id)).toBe(row.version);
    expect((await context.indexedIds()).sort()).toEqual([missing, stale, fine].sort());
    expect(await context.get(IndexReconciler).reconcile()).toEqual({
      replayed: 0,
      checked: 3,
      missing: 0,
      stale: 0,
      ahead: 0,
      removed: 0,
    });
  });

  it('the reconciler rewrites a document ahead of its row (MySQL restored from a backup) without moving a version back', async () => {
    const [restored, untouched] = await seedVideos(context, 2);
    // The index saw three changes the restored row never had: its document is at version 4, the row at 1.
    const [row] = await context.videos.findByIds([restored!]);
    await context.indexWriter.indexVideos([{ ...row!, title: 'Changed after the backup', version: 4 }]);
    await context.indexAdmin.refresh();
    expect(await versionOf(restored!)).toBe(4);

    const result = await context.get(IndexReconciler).reconcile();
    expect(result).toMatchObject({ checked: 2, missing: 0, stale: 0, ahead: 1, removed: 0 });
    await context.indexAdmin.refresh();
    const [after] = await context.videos.findByIds([restored!]);
    // The row moved past the document, and the document now says what the row says.
    expect(after!.version).toBe(5);
    expect(await versionOf(restored!)).toBe(5);
    const document = await context.indexInventory.document(restored!);
    expect(document?.title).toBe(row!.title);
    const [other] = await context.videos.findByIds([untouched!]);
    expect(other!.version).toBe(1);
    expect(await context.get(IndexReconciler).reconcile()).toMatchObject({ ahead: 0 });
  });

  it("lists only this alias's versioned indices, not those of an alias that starts with its name", async () => {
    const neighbour = `${context.indexAdmin.alias}_neighbour_20261124000000000`;
    const created = await fetch(`${context.config.ELASTICSEARCH_URL}/${neighbour}`, {
      method: 'PUT',
      signal: AbortSignal.timeout(10_000),
    });
    expect(created.status).toBe(200);
    try {
      const listed = await context.indexAdmin.versionedIndices();
      expect(listed).toEqual(await context.indexAdmin.aliasTargets());
      expect(listed).not.toContain(neighbour);
    } finally {
      await context.indexAdmin.deleteIndex(neighbour);
    }
  });

  it('a reindex swaps the alias to a new index and keeps changes made while it loads', async () => {
    const ids = await seedVideos(context, 25);
    const before = await context.indexAdmin.aliasTargets();
    // The first rows in id order: already copied when the first batch reports progress.
    const [changed, purged] = [...ids].sort();
    let changedDuringLoad = false;
    const result = await context.get(ReindexService).rebuild({
      batchSize: 5,
      onProgress: async ({ documents }) => {
        if (documents !== 5 || changedDuringLoad) return;
        changedDuringLoad = true;
        // Rows already copied change under the running reindex: one edited, one purged.
        await context.dataSource.query(
          "UPDATE videos SET title = 'Edited during reindex', version = version + 1, updated_at = ? WHERE id = ?",
          [new Date(), changed],
        );
        await context.dataSource.transaction(async (manager) => {
          await manager.query(
            "INSERT INTO deletion_audit (video_id, author_id, reason, objects_deleted, purged_at) VALUES (?, 'author-1', 'permanent', 0, ?)",
            [purged, new Date()],
          );
          await manager.query('DELETE FROM videos WHERE id = ?', [purged]);
        });
      },
    });
    expect(changedDuringLoad).toBe(true);
    expect(result.documents).toBe(25);
    expect(result.previous).toEqual(before);
    expect(await context.indexAdmin.aliasTargets()).toEqual([result.index]);
    for (const old of before) expect(await context.indexAdmin.indexExists(old)).toBe(false);

    const indexed = await context.indexedIds();
    expect(indexed).toHaveLength(24);
    expect(indexed).not.toContain(purged);
    expect((await context.indexInventory.document(changed!))?.title).toBe('Edited during reindex');
  }, 60_000);

  describe('searches sent together (one _msearch)', () => {
    const FILTER = ['hits.total', 'hits.hits._id'];
    const titled = (word: string): estypes.SearchRequest => ({
      index: context.indexAdmin.alias,
      query: { match: { title: word } },
      sort: [{ id: { order: 'asc' } }],
      _source: false,
    });

    it('answers each search as it answers alone, in the order asked', async () => {
      await seedVideos(context, 5, { title: (i) => (i < 3 ? `Otter talk ${i}` : `Heron talk ${i}`) });
      await context.indexAdmin.refresh();
      const searches = [
        titled('otter'),
        titled('heron'),
        { ...titled('talk'), size: 0, request_cache: false },
      ];
      const alone = await Promise.all(
        searches.map((search) => context.indexReads.search({ ...search, filter_path: FILTER })),
      );
      const together = await context.indexReads.searchTogether(searches, FILTER);
      expect(together).toEqual(alone);
      expect(together.map((answer) => answer.hits.total)).toEqual([
        { value: 3, relation: 'eq' },
        { value: 2, relation: 'eq' },
        { value: 5, relation: 'eq' },
      ]);
      expect(together[0]!.hits.hits).toHaveLength(3);
    });

    it('throws a search that fails as that search alone throws: its status and its cause', async () => {
      const missing = { ...titled('otter'), index: `${context.indexAdmin.alias}_missing` };
      const failure = await context.indexReads
        .searchTogether([titled('otter'), missing], FILTER)
        .catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(errors.ResponseError);
      expect((failure as errors.ResponseError).statusCode).toBe(404);
      // A missing index is one the API answers 503 for (not there before the first setup).
      expect(isUnavailable(failure)).toBe(true);

      const malformed = { ...titled('otter'), sort: [{ title: { order: 'asc' } }] } as estypes.SearchRequest;
      const refused = await context.indexReads
        .searchTogether([malformed], FILTER)
        .catch((error: unknown) => error);
      expect((refused as errors.ResponseError).statusCode).toBe(400);
      expect(isUnavailable(refused)).toBe(false);
    });
  });

  it('counts the very videos the ranking matches, however few alternatives the count asks', async () => {
    const titles = [
      'The art of data science',
      'Its own pace',
      'Deploying Python services',
      'A guide to the pandas',
      'Of mice and men',
      'Pythons in the wild',
      'Is it a bird',
    ];
    await seedVideos(context, titles.length, {
      title: (i) => titles[i]!,
      description: (i) => (i % 2 === 0 ? 'Notes on the service and its data' : 'Of the wild and the tame'),
    });
    const total = async (request: estypes.SearchRequest) =>
      ((await context.indexReads.search(request)).hits.total as estypes.SearchTotalHits).value;
    const counts: number[] = [];
    for (const q of [
      'the art',
      'its',
      'of and',
      'a the',
      'is it',
      'deploying python',
      'python servic',
      'wild',
    ]) {
      const { rank, count } = buildSearchRequests(
        { q, sort: 'relevance' },
        { kind: 'window', from: 0, size: 10 },
        context.indexAdmin.alias,
      );
      // Every alternative the ranking scores, as the filter: what the ranking matches.
      const scored = (rank.query?.bool?.must as { dis_max: { queries: estypes.QueryDslQueryContainer[] } })
        .dis_max.queries;
      const [state] = count.query?.bool?.filter as estypes.QueryDslQueryContainer[];
      const matched = await total({
        ...count,
        query: { bool: { filter: [state!, { bool: { should: scored, minimum_should_match: 1 } }] } },
      });
      expect({ q, counted: await total(count) }).toEqual({ q, counted: matched });
      counts.push(matched);
    }
    // Queries of stop words only and queries with other words, each matching something.
    expect(counts.every((count) => count > 0)).toBe(true);
  });
});
