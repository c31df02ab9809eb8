/**
 * `npm run relevance`: known-item search quality of the API against two baselines on the same data
 * in the same run: MySQL FULLTEXT (natural-language mode) and a plain Elasticsearch multi_match.
 * Queries are built deterministically from the sample: exact titles, partial titles, titles with
 * one typo, and distinctive description words (bench/lib/queries.ts, shared with the search bench's
 * query mix); and the language kinds (bench/lib/language-queries.ts): a word in another
 * inflection, a speaker's surname with a title word, a title start cut mid-word, a title without
 * its accents; and a kind per language of the catalogue, with English apart
 * (bench/lib/catalogue-language-queries.ts). Reports each kind and each target, writes
 * docs/relevance-results.md, and fails when the API misses a target of GATING_TARGETS
 * (docs/relevance.md).
 */
import 'reflect-metadata';
import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { signDevToken } from '@app/shared/auth/dev-token';
import { loadConfig } from '@app/shared/config/load-config';
import type { VideoEntity } from '@app/shared/video/video.entity';
import { VideoState } from '@app/shared/video/video-state';
import {
  CATALOGUE_LANGUAGE_KINDS,
  catalogueLanguageQueries,
  ENGLISH_DERIVATION,
  englishDerivationQueries,
  type CatalogueLanguageKind,
} from './lib/catalogue-language-queries';
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
const LANGUAGES = 'languages of the catalogue';
/** The known-item queries whose video's stored language is English. */
const ENGLISH_KNOWN_ITEMS = 'English known items';
type QueryKind =
  Kind | LanguageKind | typeof SYNONYM_KIND | CatalogueLanguageKind | typeof ENGLISH_DERIVATION;
type Group = QueryKind | typeof KNOWN_ITEMS | typeof LANGUAGE | typeof LANGUAGES | typeof ENGLISH_KNOWN_ITEMS;

/** The groups whose figures add up their kinds' queries, and the kinds each adds up. */
const AGGREGATES: [Group, readonly QueryKind[]][] = [
  [KNOWN_ITEMS, KINDS],
  [LANGUAGE, LANGUAGE_KINDS],
  [LANGUAGES, CATALOGUE_LANGUAGE_KINDS],
];

/**
 * MRR@10 the API must reach: each kind, the language kinds together, the known items as before
 * them; each language of the catalogue, those languages together, English's known items and
 * derivations.
 */
const TARGETS = {
  eachKind: 0.85,
  language: 0.9,
  knownItems: 0.973,
  eachLanguage: 0.9,
  languages: 0.93,
  englishKnownItems: 0.973,
  englishDerivation: 0.85,
};

type Target =
  | 'each kind'
  | 'synonyms'
  | 'language kinds'
  | 'known items'
  | 'each language'
  | 'languages together'
  | 'English known items'
  | 'English derivation';

/**
 * The targets whose miss fails the run (exit 1); the others are reported, met or missed, and do
 * not fail it. Search does not yet analyse words by their video's language (docs/contract.md §7):
 * the per-language targets judge that analysis while it is being built.
 */
const GATING_TARGETS: ReadonlySet<Target> = new Set([
  'each kind',
  'synonyms',
  'language kinds',
  'known items',
]);

interface Query {
  kind: QueryKind;
  q: string;
  target: string;
  /** A group the query also counts in besides its kind's (ENGLISH_KNOWN_ITEMS). */
  alsoIn?: Group;
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
    for (const [group, kinds] of AGGREGATES) if (kinds.includes(query.kind)) add(group, rank);
    if (query.alsoIn) add(query.alsoIn, rank);
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
    const english = new Set(videos.filter((video) => video.language === 'eng').map((video) => video.id));
    const queries: Query[] = [
      ...knownItemQueries(videos, PER_KIND).map((item) =>
        english.has(item.target) ? { ...item, alsoIn: ENGLISH_KNOWN_ITEMS } : item,
      ),
      ...languageQueries(videos, PER_KIND),
      ...catalogueLanguageQueries(videos, PER_KIND),
      ...englishDerivationQueries(videos, PER_KIND),
    ];

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

    const groups: Group[] = [
      KNOWN_ITEMS,
      ...KNOWN_ITEM_KINDS,
      LANGUAGE,
      ...LANGUAGE_KINDS,
      SYNONYM_KIND,
      LANGUAGES,
      ...CATALOGUE_LANGUAGE_KINDS,
      ENGLISH_KNOWN_ITEMS,
      ENGLISH_DERIVATION,
    ];
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
          const label = AGGREGATES.some(([aggregate]) => aggregate === group) ? `**${group}**` : group;
          return `| ${label} (${s.n}) | ${name} | ${pct(s.at1, s.n)} | ${pct(s.at10, s.n)} | ${mrr(name, group).toFixed(3)} |`;
        }),
      ),
    ].join('\n');
    const API = systems[0]![0];
    // Ahead: a higher MRR@10 than each baseline, or both perfect (nothing left to be ahead on).
    const ahead = (group: Group) =>
      systems.slice(1).every(([name]) => mrr(API, group) > mrr(name, group) || mrr(API, group) === 1);
    const beats = (group: Group, target: number) => ahead(group) && mrr(API, group) >= target;
    const checks: { target: Target; check: string; met: boolean }[] = [
      ...[...KNOWN_ITEM_KINDS, ...LANGUAGE_KINDS].map((kind) => ({
        target: 'each kind' as const,
        check: `${kind}: ahead of both baselines, MRR@10 ≥ ${TARGETS.eachKind}`,
        met: beats(kind, TARGETS.eachKind),
      })),
      {
        target: 'synonyms',
        check: `${SYNONYM_KIND}: with its rules, ahead of both baselines and of the API without them, MRR@10 ≥ ${TARGETS.eachKind}`,
        met:
          beats(SYNONYM_KIND, TARGETS.eachKind) && mrr(API, SYNONYM_KIND) > mrr(withoutRules, SYNONYM_KIND),
      },
      {
        target: 'language kinds',
        check: `${LANGUAGE}: MRR@10 ≥ ${TARGETS.language}`,
        met: mrr(API, LANGUAGE) >= TARGETS.language,
      },
      {
        target: 'known items',
        check: `${KNOWN_ITEMS}: MRR@10 ≥ ${TARGETS.knownItems}`,
        met: mrr(API, KNOWN_ITEMS) >= TARGETS.knownItems,
      },
      ...CATALOGUE_LANGUAGE_KINDS.map((kind) => ({
        target: 'each language' as const,
        check: `${kind}: ahead of both baselines, MRR@10 ≥ ${TARGETS.eachLanguage}`,
        met: beats(kind, TARGETS.eachLanguage),
      })),
      {
        target: 'languages together',
        check: `${LANGUAGES}: ahead of both baselines, MRR@10 ≥ ${TARGETS.languages}`,
        met: beats(LANGUAGES, TARGETS.languages),
      },
      {
        target: 'English known items',
        check: `${ENGLISH_KNOWN_ITEMS}: ahead of both baselines, MRR@10 ≥ ${TARGETS.englishKnownItems}`,
        met: beats(ENGLISH_KNOWN_ITEMS, TARGETS.englishKnownItems),
      },
      {
        target: 'English derivation',
        check: `${ENGLISH_DERIVATION}: ahead of both baselines, MRR@10 ≥ ${TARGETS.englishDerivation}`,
        met: beats(ENGLISH_DERIVATION, TARGETS.englishDerivation),
      },
    ];
    const verdicts = checks
      .map(({ target, check, met }) => {
        const verdict = met ? 'met' : '**missed**';
        return `- ${verdict}${GATING_TARGETS.has(target) ? '' : ' (not gating)'}: ${check}`;
      })
      .join('\n');
    console.log(`${table}\n\n${verdicts}`);
    writeFileSync(
      resolve(PATHS.docs, 'relevance-results.md'),
      `# Relevance results\n\nGenerated by \`npm run relevance\` on ${new Date().toISOString().slice(0, 10)} over ${videos.length} active videos, ` +
        `${queries.length + synonym.queries.length} queries (${PER_KIND} per kind, or as many as the sample allows; fixed seeds), on ${await machine(config.ELASTICSEARCH_URL)}. ` +
        'See [relevance.md](relevance.md) for the method and the tuning; a target marked "not gating" does not fail the run.\n\n' +
        `${table}\n\n${verdicts}\n`,
    );
    if (checks.some(({ target, met }) => GATING_TARGETS.has(target) && !met)) process.exitCode = 1;
  } finally {
    await context.close();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
