import { uuidV5, VIDEO_ID_NAMESPACE } from '@app/shared/ids/uuid';
import { stemmedText } from '@app/shared/search/search-text';
import { mediaPrefix } from '@app/shared/storage/storage.service';
import { importSample } from '../support/sample-import';
import { openTestContext, type TestContext } from '../support/test-context';

/** The sample's first record: three speakers, event "Bay Piggies". */
const FIRST_SLUG = 'bay-piggies/april-2016-baypiggies-meeting-at-linkedin-a-preview-of-pycon';

describe('npm run cli -- import', () => {
  let context: TestContext;

  beforeAll(async () => {
    context = await openTestContext();
    await context.reset();
  }, 60_000);

  afterAll(() => context.close());

  async function importRecords(limit: number) {
    const result = await importSample(limit, 200);
    expect(result).toMatchObject({ code: 0 });
    return result.output;
  }

  it('500 records leave exactly 500 rows, their objects in S3 and 500 documents in the index', async () => {
    const output = await importRecords(500);
    expect(output).toMatch(/Imported 500 of 500 records/);

    const rows: { id: string }[] = await context.dataSource.query('SELECT id FROM videos');
    const ids = rows.map((row) => row.id).sort();
    expect(ids).toHaveLength(500);

    const keys = await context.allMediaKeys();
    const expectedKeys = ids.flatMap((id) => [
      `${mediaPrefix(id)}original.mp4`,
      `${mediaPrefix(id)}thumbnail.jpg`,
    ]);
    expect(keys.sort()).toEqual(expectedKeys.sort());

    expect((await context.indexedIds()).sort()).toEqual(ids);
  }, 120_000);

  it("stores each record's speakers and event, and indexes them", async () => {
    const [row] = await context.videos.findByIds([uuidV5(FIRST_SLUG, VIDEO_ID_NAMESPACE)]);
    expect(row).toMatchObject({
      speakers: ['Alex Martelli', 'Lisa Bang', 'Dave Sawyer'],
      event: 'Bay Piggies',
    });
    const indexed = await context.indexReads.search({
      index: context.indexAdmin.alias,
      query: {
        bool: {
          filter: [
            { match: { 'stems.heading': stemmedText('Sawyer') } },
            { match: { 'stems.labels': stemmedText('Piggies') } },
          ],
        },
      },
    });
    expect(indexed.hits.hits.map((hit) => hit._id)).toContain(row!.id);
  });

  it('upserts by id: importing the same records again adds nothing and bumps the version', async () => {
    await importRecords(500);
    const rows: { count: string; versions: string }[] = await context.dataSource.query(
      'SELECT COUNT(*) AS count, GROUP_CONCAT(DISTINCT version) AS versions FROM videos',
    );
    const { count, versions } = rows[0]!;
    expect(Number(count)).toBe(500);
    expect(versions).toBe('2');
    expect(await context.allMediaKeys()).toHaveLength(1000);
    expect(await context.indexedIds()).toHaveLength(500);
  }, 120_000);
});
