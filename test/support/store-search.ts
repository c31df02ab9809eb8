import type { Client } from '@elastic/elasticsearch';
import { Redis } from 'ioredis';
import { SEARCH_CLIENT } from '@app/shared/search/search.client';
import type { TestContext } from './test-context';

/** The column types that can hold text: every one a person's id could be written into. */
const TEXT_TYPES = [
  'char',
  'varchar',
  'tinytext',
  'text',
  'mediumtext',
  'longtext',
  'json',
  'tinyblob',
  'blob',
  'mediumblob',
  'longblob',
  'binary',
  'varbinary',
  'enum',
  'set',
];

/**
 * Every table of the test database with a row whose text holds `needle` in any column (byte for
 * byte, whatever the column's collation), and how many such rows: read from information_schema,
 * so a table added later is searched too.
 */
export async function mysqlMentions(context: TestContext, needle: string): Promise<Record<string, number>> {
  const columns: { tableName: string; columnName: string }[] = await context.dataSource.query(
    `SELECT c.TABLE_NAME AS tableName, c.COLUMN_NAME AS columnName
     FROM information_schema.COLUMNS c
     JOIN information_schema.TABLES t ON t.TABLE_SCHEMA = c.TABLE_SCHEMA AND t.TABLE_NAME = c.TABLE_NAME
     WHERE c.TABLE_SCHEMA = DATABASE() AND t.TABLE_TYPE = 'BASE TABLE' AND c.DATA_TYPE IN (?)`,
    [TEXT_TYPES],
  );
  const byTable = new Map<string, string[]>();
  for (const { tableName, columnName } of columns)
    byTable.set(tableName, [...(byTable.get(tableName) ?? []), columnName]);
  const found: Record<string, number> = {};
  const pattern = `%${needle.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
  for (const [table, names] of byTable) {
    const where = names.map((name) => `CAST(\`${name}\` AS BINARY) LIKE CAST(? AS BINARY)`).join(' OR ');
    const [row] = await context.dataSource.query<{ n: string | number }[]>(
      `SELECT COUNT(*) AS n FROM \`${table}\` WHERE ${where}`,
      names.map(() => pattern),
    );
    if (Number(row!.n) > 0) found[table] = Number(row!.n);
  }
  return found;
}

/** Every value of a Redis key, whatever its type (streams: each entry's fields and values). */
async function redisValues(redis: Redis, key: Buffer): Promise<Buffer[]> {
  switch (await redis.type(key)) {
    case 'string':
      return [(await redis.getBuffer(key)) ?? Buffer.alloc(0)];
    case 'hash':
      return redis
        .hgetallBuffer(key)
        .then((hash) => Object.entries(hash).flatMap(([f, v]) => [Buffer.from(f), v]));
    case 'list':
      return redis.lrangeBuffer(key, 0, -1);
    case 'set':
      return redis.smembersBuffer(key);
    case 'zset':
      return redis.zrangeBuffer(key, 0, -1);
    case 'stream':
      return (await redis.xrangeBuffer(key, '-', '+')).flatMap(([id, fields]) => [id, ...fields]);
    default:
      return [];
  }
}

/**
 * Every key of the Redis database at `url` whose name or value holds `needle` (byte for byte):
 * strings, hashes (BullMQ's jobs: data, options, return values, failure reasons), lists, sets,
 * sorted sets and streams (BullMQ's events).
 */
export async function redisMentions(url: string, needle: string): Promise<string[]> {
  const redis = new Redis(url, { maxRetriesPerRequest: 1 });
  const bytes = Buffer.from(needle);
  try {
    const found: string[] = [];
    let cursor = '0';
    do {
      const [next, keys] = await redis.scanBuffer(cursor, 'COUNT', 1_000);
      cursor = String(next);
      for (const key of keys) {
        const values = await redisValues(redis, key);
        if (key.includes(bytes) || values.some((value) => value.includes(bytes))) found.push(key.toString());
      }
    } while (cursor !== '0');
    return found;
  } finally {
    redis.disconnect();
  }
}

/** Every object of the test bucket whose key or body holds `needle`. */
export async function s3Mentions(context: TestContext, needle: string): Promise<string[]> {
  const found: string[] = [];
  for await (const keys of context.storage.listKeys('')) {
    for (const key of keys) {
      if (key.includes(needle) || ((await context.storage.getText(key)) ?? '').includes(needle))
        found.push(key);
    }
  }
  return found;
}

/** How many documents of the index answer `needle` in any field, word or exact value. */
export async function indexMentions(context: TestContext, needle: string): Promise<number> {
  const client = context.get<Client>(SEARCH_CLIENT);
  await context.indexAdmin.refresh();
  const answer = await client.search({
    index: context.config.ELASTICSEARCH_INDEX,
    size: 0,
    track_total_hits: true,
    query: {
      bool: {
        should: [
          { query_string: { query: `"${needle}"`, fields: ['*'], lenient: true } },
          { multi_match: { query: needle, fields: ['*'], type: 'phrase', lenient: true } },
        ],
      },
    },
  });
  const total = answer.hits.total;
  return typeof total === 'number' ? total : (total?.value ?? 0);
}
