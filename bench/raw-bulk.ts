/**
 * The reindex baseline: the same rows streamed from MySQL straight into a fresh index with the
 * client's `helpers.bulk`, no framework, no versioning, no alias swap. Prints one JSON line.
 */
import 'reflect-metadata';
import { Client } from '@elastic/elasticsearch';
import { createConnection } from 'mysql2';
import { loadConfig } from '@app/shared/config/load-config';
import { toVideoDocument } from '@app/shared/search/video-document';
import { videoIndexMappings, videoIndexSettings } from '@app/shared/search/video-index.definition';

interface Row {
  id: string;
  author_id: string;
  state: string;
  title: string;
  description: string;
  tags: string | string[];
  speakers: string | string[];
  event: string | null;
  published_at: Date | null;
  language: string;
}

/** MariaDB returns JSON columns as text, MySQL as parsed values. */
const list = (value: string | string[]): string[] =>
  typeof value === 'string' ? (JSON.parse(value) as string[]) : value;

async function main(): Promise<void> {
  const config = loadConfig();
  const client = new Client({ node: config.ELASTICSEARCH_URL });
  const index = `${config.ELASTICSEARCH_INDEX}_rawbulk_${Date.now()}`;
  await client.indices.create({
    index,
    settings: { ...videoIndexSettings, refresh_interval: '-1' },
    mappings: videoIndexMappings,
  });
  const connection = createConnection({ uri: config.DATABASE_URL, timezone: 'Z' });
  const started = performance.now();
  const rows = connection
    .query(
      'SELECT id, author_id, state, title, description, tags, speakers, event, published_at, language FROM videos',
    )
    .stream({ highWaterMark: 1_000 });
  const result = await client.helpers.bulk<Row>({
    datasource: rows,
    flushBytes: 5_000_000,
    concurrency: 2,
    onDocument: (row) => [
      { index: { _index: index, _id: row.id } },
      // The same document the product writes (its derived text is part of the indexing cost).
      toVideoDocument({
        id: row.id,
        authorId: row.author_id,
        state: row.state,
        title: row.title,
        description: row.description,
        tags: list(row.tags),
        speakers: list(row.speakers),
        event: row.event,
        publishedAt: row.published_at,
        language: row.language,
      }),
    ],
  });
  await client.indices.refresh({ index });
  const seconds = (performance.now() - started) / 1000;
  connection.end();
  await client.indices.delete({ index });
  await client.close();
  console.log(JSON.stringify({ documents: result.successful, failed: result.failed, seconds }));
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
