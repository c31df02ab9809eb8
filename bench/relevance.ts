/**
 * `npm run relevance`: known-item search quality of the API against two baselines on the same data
 * in the same run: MySQL FULLTEXT (natural-language mode) and a plain Elasticsearch multi_match.
 * Queries are built deterministically from the sample: exact titles, partial titles, titles with
 * one typo, and distinctive description words (bench/lib/queries.ts, shared with the search bench's
 * query mix); and the language kinds (bench/lib/language-queries.ts): a word in another
 * inflection, a speaker's surname with a title word, a title start cut mid-word, a title without
 * its accents. Reports each kind, writes docs/relevance-results.md, and fails when the API is not
 * ahead of both baselines on every kind or misses a target (docs/relevance.md).
 */
import 'reflect-metadata';
import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { signDevToken } from '@app/shared/auth/dev-token';
import { loadConfig } from '@app/shared/config/load-config';
import type { VideoEntity } from '@app/shared/video/video.entity';
import { VideoState } from '@app/shared/video/video-state';
import { completeSort, openContext, PATHS } from './lib/kit';
import { LANGUAGE_KINDS, languageQueries, type LanguageKind } from './lib/language-queries';
import { KINDS, knownItemQueries, type Kind } from './lib/queries';
import { SYNONYM_KIND, synonymQueries } from './lib/synonym-queries';
import { machine } from './lib/report';

type Ranker = (q: string) => Promise<string[]>;

const PER_KIND = Number(process.env.RELEVANCE_PER_KIND ?? 200);

const KNOWN_ITEM_KINDS: Kind[] = [...KINDS];
const KNOWN_ITEMS = 'known items';
const LANGUAGE = 'language kinds';
type Group = Kind | LanguageKind | typeof SYNONYM_KIND | typeof KNOWN_ITEMS | typeof LANGUAGE;

/** MRR@10 the API must reach (issue 20): each kind, the language kinds together, the known items as before them. */
const TARGETS = { eachKind: 0.85, language: 0.9, knownItems: 0.973 };

interface Query {
  kind: Kind | LanguageKind | typeof SYNONYM_KIND;
  q: string;
  target: string;
}

interface Score {
  at1: number;
  at10: number;
  mrr: number;
  n: number;
}

async function evaluate(ranker: Ranker, queries: Query[]): Promise<Map<Group, Score>> {
  const scores = new Map<Group, Score>();
  const add = (key: Group, rank: number) => {
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
    if ((LANGUAGE_KINDS as string[]).includes(query.kind)) add(LANGUAGE, rank);
    if ((KINDS as readonly string[]).includes(query.kind)) add(KNOWN_ITEMS, rank);
  }
  return scores;
}

/**
 * The API's synonym set (docs/contract.md §7.3): read it, or replace it with `rules` (the bench's
 * token is an admin's). Returns the rules in force.
 */
async function synonyms(api: string, token: string, rules?: string[]): Promise<string[]> {
  const response = await fetch(`${api}/api/search/synonyms`, {
    method: rules ? 'PUT' : 'GET',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    ...(rules ? { body: JSON.stringify({ rules }) } : {}),
  });
  if (!response.ok)
    throw new Error(`API answered ${response.status} to the synonym set: ${await response.text()}`);
  return ((await response.json()) as { rules: string[] }).rules;
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
    const queries: Query[] = [...knownItemQueries(videos, PER_KIND), ...languageQueries(videos, PER_KIND)];

    // Baseline 1: what a small team would build on MySQL alone, on a copy so the schema stays untouched.
    await context.dataSource.query('DROP TABLE IF EXISTS relevance_fulltext');
    await context.dataSource.query(
      "CREATE TABLE relevance_fulltext ENGINE=InnoDB AS SELECT id, title, description, published_at FROM videos WHERE state = 'active'",
    );
    await context.dataSource.query(
      'ALTER TABLE relevance_fulltext ADD FULLTEXT INDEX ft (title, description)',
    );
    const mysql: Ranker = async (q) => {
      const rows: { id: string }[] = await context.dataSource.query(
        'SELECT id FROM relevance_fulltext WHERE MATCH(title, description) AGAINST (? IN NATURAL LANGUAGE MODE) ' +
          'ORDER BY MATCH(title, description) AGAINST (? IN NATURAL LANGUAGE MODE) DESC, published_at DESC, id LIMIT 10',
        [q, q],
      );
      return rows.map((row) => row.id);
    };

    // Baseline 2: the first thing one writes with Elasticsearch, on the same index, its ties in the
    // API's order: by score alone they fall in the index's internal order, which moves with its
    // segments (the description words' figure went from 0.962 to 0.965 between two builds of the
    // same sample), and the suite's verdict with it.
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
          sort: completeSort('relevance'),
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
    const results = new Map<string, Map<Group, Score>>();
    for (const [name, ranker] of systems) results.set(name, await evaluate(ranker, queries));

    // A synonym the catalogue does not hold: the API without the kind's rules, then with them
    // (saved through the API, the set it had put back afterwards); the baselines know no rules.
    const synonym = synonymQueries(videos, PER_KIND);
    const withoutRules = 'API without the rules';
    const before = await synonyms(api, token);
    try {
      await synonyms(api, token, []);
      results.set(withoutRules, await evaluate(service, synonym.queries));
      await synonyms(api, token, synonym.rules);
      for (const [name, ranker] of systems)
        for (const [group, score] of await evaluate(ranker, synonym.queries))
          results.get(name)!.set(group, score);
    } finally {
      await synonyms(api, token, before);
    }
    await context.dataSource.query('DROP TABLE relevance_fulltext');

    const groups: Group[] = [KNOWN_ITEMS, ...KNOWN_ITEM_KINDS, LANGUAGE, ...LANGUAGE_KINDS, SYNONYM_KIND];
    const score = (name: string, group: Group) =>
      results.get(name)?.get(group) ?? { at1: 0, at10: 0, mrr: 0, n: 0 };
    /** The systems compared on a group: the synonym kind also without its rules. */
    const comparedOn = (group: Group) =>
      group === SYNONYM_KIND
        ? [systems[0]![0], withoutRules, ...systems.slice(1).map(([name]) => name)]
        : systems.map(([name]) => name);
    const mrr = (name: string, group: Group) => {
      const s = score(name, group);
      return s.n === 0 ? 0 : s.mrr / s.n;
    };
    const pct = (value: number, n: number) => `${((100 * value) / n).toFixed(1)}%`;
    const table = [
      '| queries | system | Success@1 | Success@10 | MRR@10 |',
      '|---|---|---|---|---|',
      ...groups.flatMap((group) =>
        comparedOn(group).map((name) => {
          const s = score(name, group);
          const label = group === KNOWN_ITEMS || group === LANGUAGE ? `**${group}**` : group;
          return `| ${label} (${s.n}) | ${name} | ${pct(s.at1, s.n)} | ${pct(s.at10, s.n)} | ${mrr(name, group).toFixed(3)} |`;
        }),
      ),
    ].join('\n');
    const API = systems[0]![0];
    // Ahead: a higher MRR@10 than each baseline, or both perfect (nothing left to be ahead on).
    const ahead = (group: Group) =>
      systems.slice(1).every(([name]) => mrr(API, group) > mrr(name, group) || mrr(API, group) === 1);
    const checks: [string, boolean][] = [
      ...[...KNOWN_ITEM_KINDS, ...LANGUAGE_KINDS].map((kind): [string, boolean] => [
        `${kind}: ahead of both baselines, MRR@10 ≥ ${TARGETS.eachKind}`,
        ahead(kind) && mrr(API, kind) >= TARGETS.eachKind,
      ]),
      [
        `${SYNONYM_KIND}: with its rules, ahead of both baselines and of the API without them, MRR@10 ≥ ${TARGETS.eachKind}`,
        ahead(SYNONYM_KIND) &&
          mrr(API, SYNONYM_KIND) > mrr(withoutRules, SYNONYM_KIND) &&
          mrr(API, SYNONYM_KIND) >= TARGETS.eachKind,
      ],
      [`${LANGUAGE}: MRR@10 ≥ ${TARGETS.language}`, mrr(API, LANGUAGE) >= TARGETS.language],
      [`${KNOWN_ITEMS}: MRR@10 ≥ ${TARGETS.knownItems}`, mrr(API, KNOWN_ITEMS) >= TARGETS.knownItems],
    ];
    const verdicts = checks.map(([check, met]) => `- ${met ? 'met' : '**missed**'}: ${check}`).join('\n');
    console.log(`${table}\n\n${verdicts}`);
    writeFileSync(
      resolve(PATHS.docs, 'relevance-results.md'),
      `# Relevance results\n\nGenerated by \`npm run relevance\` on ${new Date().toISOString().slice(0, 10)} over ${videos.length} active videos, ` +
        `${queries.length + synonym.queries.length} queries (${PER_KIND} per kind, fixed seeds), on ${await machine(config.ELASTICSEARCH_URL)}. ` +
        'See [relevance.md](relevance.md) for the method and the tuning.\n\n' +
        `${table}\n\n${verdicts}\n`,
    );
    if (!checks.every(([, met]) => met)) process.exitCode = 1;
  } finally {
    await context.close();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
