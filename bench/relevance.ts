/**
 * `npm run relevance`: known-item search quality of the API against two baselines on the same data
 * in the same run: MySQL FULLTEXT (natural-language mode) and a plain Elasticsearch multi_match.
 * Queries are built deterministically from the sample (bench/lib/queries.ts, shared with the search
 * bench's query mix): exact titles, partial titles, titles with one typo, and distinctive
 * description words. Writes docs/relevance.md.
 */
import 'reflect-metadata';
import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { signDevToken } from '@app/shared/auth/dev-token';
import { loadConfig } from '@app/shared/config/load-config';
import type { VideoEntity } from '@app/shared/video/video.entity';
import { VideoState } from '@app/shared/video/video-state';
import { openContext, PATHS } from './lib/kit';
import { knownItemQueries, type KnownItem, type Kind } from './lib/queries';
import { machine } from './lib/report';

type Ranker = (q: string) => Promise<string[]>;

const PER_KIND = Number(process.env.RELEVANCE_PER_KIND ?? 200);

interface Score {
  at1: number;
  at10: number;
  mrr: number;
  n: number;
}

async function evaluate(ranker: Ranker, queries: KnownItem[]): Promise<Map<Kind | 'all', Score>> {
  const scores = new Map<Kind | 'all', Score>();
  const add = (key: Kind | 'all', rank: number) => {
    const s = scores.get(key) ?? { at1: 0, at10: 0, mrr: 0, n: 0 };
    s.n += 1;
    if (rank === 1) s.at1 += 1;
    if (rank >= 1 && rank <= 10) {
      s.at10 += 1;
      s.mrr += 1 / rank;
    }
    scores.set(key, s);
  };
  for (const query of queries) {
    const rank = (await ranker(query.q)).slice(0, 10).indexOf(query.target) + 1;
    add(query.kind, rank);
    add('all', rank);
  }
  return scores;
}

async function main(): Promise<void> {
  const config = loadConfig();
  const context = await openContext(config);
  const api = process.env.RELEVANCE_API ?? `http://127.0.0.1:${config.PORT}`;
  const token = signDevToken({
    secret: config.JWT_SECRET ?? '',
    sub: 'relevance',
    roles: ['admin'],
    ttlSeconds: 3600,
  });
  try {
    const videos: VideoEntity[] = [];
    for await (const rows of context.videos.rowBatches(2_000))
      videos.push(...rows.filter((r) => r.state === VideoState.Active));
    if (videos.length < 1_000)
      throw new Error(`Only ${videos.length} active videos: import the sample first (npm run cli -- import)`);
    const queries = knownItemQueries(videos, PER_KIND);

    // Baseline 1: what a small team would build on MySQL alone, on a copy so the schema stays untouched.
    await context.dataSource.query('DROP TABLE IF EXISTS relevance_fulltext');
    await context.dataSource.query(
      "CREATE TABLE relevance_fulltext ENGINE=InnoDB AS SELECT id, title, description FROM videos WHERE state = 'active'",
    );
    await context.dataSource.query(
      'ALTER TABLE relevance_fulltext ADD FULLTEXT INDEX ft (title, description)',
    );
    const mysql: Ranker = async (q) => {
      const rows: { id: string }[] = await context.dataSource.query(
        'SELECT id FROM relevance_fulltext WHERE MATCH(title, description) AGAINST (? IN NATURAL LANGUAGE MODE) ' +
          'ORDER BY MATCH(title, description) AGAINST (? IN NATURAL LANGUAGE MODE) DESC LIMIT 10',
        [q, q],
      );
      return rows.map((row) => row.id);
    };

    // Baseline 2: the first thing one writes with Elasticsearch, on the same index.
    const plain: Ranker = async (q) =>
      (
        await context.engine.search({
          index: config.ELASTICSEARCH_INDEX,
          size: 10,
          _source: false,
          query: {
            bool: {
              must: { multi_match: { query: q, fields: ['title', 'description'] } },
              filter: { term: { state: 'active' } },
            },
          },
        })
      ).hits.hits.map((hit) => hit._id!);

    const service: Ranker = async (q) => {
      const response = await fetch(`${api}/api/videos/search?q=${encodeURIComponent(q)}&limit=10`, {
        headers: { authorization: `Bearer ${token}` },
      });
      if (response.status === 429) throw new Error('API answered 429: run it with RATE_LIMIT_POINTS=0');
      if (!response.ok) throw new Error(`API answered ${response.status} for "${q}"`);
      return ((await response.json()) as { items: { id: string }[] }).items.map((item) => item.id);
    };

    const systems: [string, Ranker][] = [
      ['API (this service)', service],
      ['Elasticsearch multi_match', plain],
      ['MySQL FULLTEXT', mysql],
    ];
    const results = new Map<string, Map<Kind | 'all', Score>>();
    for (const [name, ranker] of systems) results.set(name, await evaluate(ranker, queries));
    await context.dataSource.query('DROP TABLE relevance_fulltext');

    const kinds: (Kind | 'all')[] = [
      'all',
      'exact title',
      'partial title',
      'title with a typo',
      'description words',
    ];
    const pct = (value: number, n: number) => `${((100 * value) / n).toFixed(1)}%`;
    const lines = [
      '| queries | system | Success@1 | Success@10 | MRR@10 |',
      '|---|---|---|---|---|',
      ...kinds.flatMap((kind) =>
        systems.map(([name]) => {
          const s = results.get(name)!.get(kind)!;
          return `| ${kind} (${s.n}) | ${name} | ${pct(s.at1, s.n)} | ${pct(s.at10, s.n)} | ${(s.mrr / s.n).toFixed(3)} |`;
        }),
      ),
    ];
    const all = (name: string) => results.get(name)!.get('all')!;
    const api_ = all('API (this service)');
    const ahead = ['Elasticsearch multi_match', 'MySQL FULLTEXT'].every((name) => {
      const other = all(name);
      return api_.at1 > other.at1 && api_.at10 > other.at10 && api_.mrr > other.mrr;
    });
    const table = lines.join('\n');
    console.log(table);
    console.log(`\nAPI ahead of both baselines on every measure: ${ahead ? 'yes' : 'NO'}`);
    writeFileSync(
      resolve(PATHS.docs, 'relevance-results.md'),
      `# Relevance results\n\nGenerated by \`npm run relevance\` on ${new Date().toISOString().slice(0, 10)} over ${videos.length} active videos, ` +
        `${queries.length} known-item queries (${PER_KIND} per kind, fixed seed), on ${await machine(config.ELASTICSEARCH_URL)}. ` +
        'See [relevance.md](relevance.md) for the method and the tuning.\n\n' +
        `${table}\n\nAPI ahead of both baselines on every measure (all queries): **${ahead ? 'yes' : 'no'}**.\n`,
    );
    if (!ahead) process.exitCode = 1;
  } finally {
    await context.close();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
