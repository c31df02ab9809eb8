import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openJsonLines } from '@app/shared/catalogue/jsonl-reader';
import { uuidV5, VIDEO_ID_NAMESPACE } from '@app/shared/ids/uuid';
import { stemmedText } from '@app/shared/search/search-text';
import { VIDEO_FIELDS } from '@app/shared/search/video-index.definition';
import { mediaPrefix } from '@app/shared/storage/storage.service';
import { ENTRY, runProcess } from '../support/processes';
import { importSample, SAMPLE } from '../support/sample-import';
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

  /** The ids of the videos the index holds with this language. */
  async function indexedWithLanguage(language: string): Promise<string[]> {
    await context.indexAdmin.refresh();
    const found = await context.indexReads.search({
      index: context.indexAdmin.alias,
      size: 1_000,
      _source: false,
      query: { term: { [VIDEO_FIELDS.language]: language } },
    });
    return found.hits.hits.map((hit) => hit._id!).sort();
  }

  it("keeps each record's language, and indexes it", async () => {
    const labels = new Map<string, string | null>();
    for await (const { value } of (await openJsonLines(SAMPLE)).lines()) {
      const record = value as { slug: string; language: string | null };
      labels.set(uuidV5(record.slug, VIDEO_ID_NAMESPACE), record.language);
      if (labels.size === 500) break;
    }
    const rows: { id: string; language: string }[] = await context.dataSource.query(
      'SELECT id, language FROM videos',
    );
    expect(rows).toHaveLength(500);
    expect(rows.filter((row) => row.language !== labels.get(row.id))).toEqual([]);
    // The sample's first records are in English and Portuguese.
    const portuguese = rows.filter((row) => row.language === 'por').map((row) => row.id);
    expect(portuguese.length).toBeGreaterThan(0);
    expect(await indexedWithLanguage('por')).toEqual(portuguese.sort());
  });

  describe('records of our own', () => {
    const RECORDS = [
      {
        slug: 'language/spanish',
        title: 'Cómo escribir pruebas automáticas en Python',
        description:
          'En esta charla veremos cómo organizar las pruebas de un proyecto y ejecutarlas en cada cambio.',
      },
      { slug: 'language/russian', title: 'Экспериментальный подход к разработке на Python', language: null },
      { slug: 'language/short', title: 'Keynote' },
      { slug: 'language/given', title: 'Testing asynchronous code without tears', language: 'fra' },
      { slug: 'language/refused', title: 'Refused', language: 'EN' },
    ];
    const id = (slug: string) => uuidV5(slug, VIDEO_ID_NAMESPACE);
    const languages = async () =>
      Object.fromEntries(
        (await context.videos.findByIds(RECORDS.map((record) => id(record.slug)))).map((row) => [
          row.id,
          { language: row.language, version: row.version },
        ]),
      );
    let dir: string;

    beforeAll(() => {
      dir = mkdtempSync(join(tmpdir(), 'import-languages-'));
    });

    afterAll(() => rmSync(dir, { recursive: true, force: true }));

    it('detects the language of a record that gives none, and refuses one that is no ISO 639-3 code', async () => {
      const file = join(dir, 'records.jsonl');
      writeFileSync(file, RECORDS.map((record) => JSON.stringify(record)).join('\n'));
      const { code, output } = await runProcess(ENTRY.cli, ['import', file, '--no-progress']);
      expect(code).toBe(0);
      expect(output).toMatch(/Imported 4 of 5 records/);
      expect(output).toContain(
        'line 5: language: must be an ISO 639-3 code: three lowercase letters, such as eng or spa',
      );
      expect(await languages()).toEqual({
        [id('language/spanish')]: { language: 'spa', version: 1 },
        [id('language/russian')]: { language: 'rus', version: 1 },
        // Too short to tell.
        [id('language/short')]: { language: 'und', version: 1 },
        // The record's own, whatever its text says.
        [id('language/given')]: { language: 'fra', version: 1 },
      });
      expect(await indexedWithLanguage('spa')).toEqual([id('language/spanish')]);
      expect(await indexedWithLanguage('fra')).toEqual([id('language/given')]);
    });

    it('`languages` detects the language of videos stored without one, writes and indexes it, once', async () => {
      // As the migration leaves the rows stored before it.
      await context.dataSource.query("UPDATE videos SET language = 'und' WHERE id IN (?)", [
        [id('language/spanish'), id('language/given')],
      ]);
      const first = await runProcess(ENTRY.cli, ['languages', '--no-progress']);
      expect(first).toMatchObject({ code: 0 });
      expect(first.output).toMatch(/Detected the language of 2 of 3 undetermined videos/);
      expect(await languages()).toEqual({
        [id('language/spanish')]: { language: 'spa', version: 2 },
        [id('language/russian')]: { language: 'rus', version: 1 },
        [id('language/short')]: { language: 'und', version: 1 },
        [id('language/given')]: { language: 'eng', version: 2 },
      });
      expect(await context.indexInventory.document(id('language/given'))).toMatchObject({ language: 'eng' });
      expect(await indexedWithLanguage('und')).toEqual([id('language/short')]);

      const again = await runProcess(ENTRY.cli, ['languages', '--no-progress']);
      expect(again.output).toMatch(/Detected the language of 0 of 1 undetermined videos/);
      expect((await languages())[id('language/spanish')]).toEqual({ language: 'spa', version: 2 });
    });
  });
});
