import fc from 'fast-check';
import type { Client } from '@elastic/elasticsearch';
import { REDIS_CLIENT, type RedisClient } from '@app/shared/redis/redis';
import { SEARCH_CLIENT } from '@app/shared/search/search.client';
import { LEDGER_PREFIX } from '@app/shared/video/deletion-ledger.service';
import { VIDEO_CHANGES_STREAM } from '@app/shared/video/video-change-feed';
import { API_ROUTES } from '@app/api/openapi';
import { bootSystem } from '../support/boot';
import { seedVideos } from '../support/seed';
import { token } from '../support/system';

/**
 * Parameters are strict on every route (docs/contract.md §4): a request with a parameter the route
 * does not take, one given twice, or a flag that is neither `true` nor `false` answers 400 naming
 * it, and changes no row, object, index document, event or job. Each route's request is otherwise
 * the most destructive it takes (a permanent delete, an erasure, an emptied trash), so a parameter
 * that slipped through would show as a change.
 */
const RUNS = Math.round(Number(process.env.STRICT_RUNS ?? 300));
const SEED = 20261128;

const OWNER = 'strict-owner';
const READER = 'strict-reader';
const ADMIN = 'strict-admin';
const owner = token(OWNER);

interface RouteCase {
  path: () => string;
  /** A request the route takes as valid: every mutation below starts from it. */
  query: Record<string, string>;
  /** The route's strict flags (`true`/`false` only); `permanent` keeps its own rule and is not one. */
  flags?: string[];
  bearer?: () => string;
}

const ids = { video: '', trashed: '', erasure: '', operation: '' };

/** Every bearer route of the API, by operationId: a route added without a case here fails the test. */
const CASES: Record<string, RouteCase> = {
  listVideoSearch: {
    path: () => '/api/videos/search',
    query: { q: 'strict parameter', limit: '5', sort: 'newest', highlight: 'true', facets: 'year' },
    flags: ['highlight'],
  },
  listVideoSuggestions: { path: () => '/api/videos/suggest', query: { q: 'stri', limit: '3' } },
  deleteVideo: { path: () => `/api/videos/${ids.video}`, query: { permanent: 'true', retentionDays: '0' } },
  restoreVideo: { path: () => `/api/videos/${ids.trashed}/restore`, query: {} },
  getVideoDeletion: { path: () => `/api/videos/${ids.trashed}/deletion`, query: {} },
  listTrash: { path: () => '/api/videos/trash', query: { page: '1', limit: '10' } },
  restoreTrash: { path: () => '/api/videos/trash/restore', query: {} },
  emptyTrash: { path: () => '/api/videos/trash', query: {} },
  getTrashOperation: {
    path: () => `/api/trash-operations/${ids.operation}`,
    query: {},
    bearer: () => token(READER),
  },
  eraseAuthorVideos: {
    path: () => `/api/authors/${OWNER}/videos`,
    query: { permanent: 'true', dryRun: 'false' },
    flags: ['dryRun'],
  },
  getErasure: { path: () => `/api/erasures/${ids.erasure}`, query: {}, bearer: () => token(READER) },
  getSynonyms: { path: () => '/api/search/synonyms', query: {}, bearer: () => token(ADMIN, ['admin']) },
  // Without a body: a parameter is named before the body is looked at.
  putSynonyms: { path: () => '/api/search/synonyms', query: {}, bearer: () => token(ADMIN, ['admin']) },
};

const BEARER_ROUTES = API_ROUTES.filter((route) => route.security === 'bearer');

/** Names a client might mistype or an attacker might try: case variants, prototype keys, brackets. */
const ODD_NAMES = [
  'dryrun',
  'DryRun',
  'PERMANENT',
  'Permanent',
  'retentiondays',
  'Q',
  'LIMIT',
  'authorid',
  '__proto__',
  'constructor',
  'toString',
  'hasOwnProperty',
  'utm_source',
  'q[]',
  'page[0]',
  'a.b',
  '',
];

type Mutation =
  | { kind: 'unknown'; name: string; value: string; replaces?: string }
  | { kind: 'repeated'; name: string }
  | { kind: 'flag'; name: string; value: string };

function mutations(operationId: string): fc.Arbitrary<Mutation> {
  const route = BEARER_ROUTES.find((r) => r.operationId === operationId)!;
  const known = Object.keys(route.query?.shape ?? {});
  const { query, flags = [] } = CASES[operationId]!;
  const unknownName = fc
    .oneof(fc.constantFrom(...ODD_NAMES), fc.stringMatching(/^[A-Za-z_][\w.-]{0,15}$/))
    .filter((name) => !known.includes(name));
  const options: fc.Arbitrary<Mutation>[] = [
    fc.record({
      kind: fc.constant('unknown' as const),
      name: unknownName,
      value: fc.constantFrom('true', '1', '', 'x'),
    }),
    // A known parameter misspelt in its letter case: it replaces the real one, as a typo would.
    ...(Object.keys(query).length
      ? [
          fc.constantFrom(...Object.keys(query)).chain((replaces) =>
            fc
              .constantFrom(replaces.toLowerCase(), replaces.toUpperCase(), `${replaces}s`)
              .filter((name) => !known.includes(name))
              .map((name): Mutation => ({ kind: 'unknown', name, value: query[replaces]!, replaces })),
          ),
        ]
      : []),
    ...(known.length
      ? [fc.constantFrom(...known).map((name): Mutation => ({ kind: 'repeated', name }))]
      : []),
    ...(flags.length
      ? [
          fc.record({
            kind: fc.constant('flag' as const),
            name: fc.constantFrom(...flags),
            value: fc.oneof(
              fc.constantFrom(
                '',
                'maybe',
                '1',
                '0',
                'yes',
                'no',
                'on',
                'truee',
                ' true',
                'true ',
                't',
                'ＴＲＵＥ',
              ),
              fc.string({ maxLength: 8 }).filter((s) => !/^(true|false)$/i.test(s)),
            ),
          }),
        ]
      : []),
  ];
  return fc.oneof(...options);
}

/** The request's query string: the route's valid one with the mutation applied. */
function queryOf(operationId: string, mutation: Mutation): string {
  const pairs = Object.entries(CASES[operationId]!.query).filter(
    ([name]) => !(mutation.kind === 'unknown' && mutation.replaces === name),
  );
  if (mutation.kind === 'unknown') pairs.push([mutation.name, mutation.value]);
  if (mutation.kind === 'flag') {
    const at = pairs.findIndex(([name]) => name === mutation.name);
    if (at >= 0) pairs.splice(at, 1);
    pairs.push([mutation.name, mutation.value]);
  }
  if (mutation.kind === 'repeated') {
    const value = pairs.find(([name]) => name === mutation.name)?.[1] ?? sample(mutation.name);
    pairs.push([mutation.name, value], [mutation.name, value]);
  }
  return new URLSearchParams(pairs).toString();
}

/** A valid value for a parameter a case's request does not carry (given twice by a mutation). */
function sample(name: string): string {
  return (
    { authorId: OWNER, page: '1', limit: '5', cursor: 'x', dateFrom: '2020-01-01', dateTo: '2030-01-01' }[
      name
    ] ?? 'true'
  );
}

describe('strict parameters on every route (fast-check)', () => {
  let redis: RedisClient;
  let search: Client;
  const boot = bootSystem({
    seed: async (context) => {
      const [video, trashed] = await seedVideos(context, 2, {
        authorId: OWNER,
        title: (n) => `Strict parameter talk ${n}`,
      });
      Object.assign(ids, { video, trashed });
      await seedVideos(context, 1, { authorId: READER, title: () => 'Strict reader talk' });
    },
    // The API alone: a worker would go on changing things (purges, deliveries) between fingerprints.
    system: { worker: false },
  });

  beforeAll(async () => {
    redis = boot.context.get<RedisClient>(REDIS_CLIENT);
    search = boot.context.get<Client>(SEARCH_CLIENT);
    const send = (method: string, path: string, bearer: string) =>
      fetch(`${boot.system.api}${path}`, {
        method,
        headers: { authorization: `Bearer ${bearer}` },
        signal: AbortSignal.timeout(20_000),
      });
    expect((await send('DELETE', `/api/videos/${ids.trashed}`, owner)).status).toBe(200);
    const erasure = await send('DELETE', `/api/authors/${READER}/videos`, token(READER));
    expect(erasure.status).toBe(202);
    ids.erasure = ((await erasure.json()) as { erasureId: string }).erasureId;
    const emptied = await send('DELETE', '/api/videos/trash', token(READER));
    expect(emptied.status).toBe(202);
    ids.operation = ((await emptied.json()) as { operationId: string }).operationId;
  }, 90_000);

  /** What any change would move: table checksums, bucket keys, index writes, queued jobs, the change feed. */
  async function fingerprint(): Promise<unknown> {
    const tables: unknown = await boot.context.dataSource.query(
      'CHECKSUM TABLE videos, erasures, trash_operations, outbox_events, webhook_deliveries, deletion_audit, search_synonyms',
    );
    const keys: string[] = [];
    for (const prefix of ['videos/', LEDGER_PREFIX])
      for await (const page of boot.context.storage.listKeys(prefix)) keys.push(...page);
    const stats = await search.indices.stats({
      index: boot.context.config.ELASTICSEARCH_INDEX,
      metric: 'indexing',
    });
    const indexing = stats._all.primaries?.indexing;
    const jobCounters = (await redis.keys('bull:*:id')).sort();
    const jobs = jobCounters.length ? await redis.mget(...jobCounters) : [];
    const feed = await redis.xrevrange(VIDEO_CHANGES_STREAM, '+', '-', 'COUNT', 1);
    return {
      tables,
      keys: keys.sort(),
      index: [indexing?.index_total, indexing?.delete_total],
      jobs: [jobCounters, jobs],
      feed,
    };
  }

  it('covers every bearer route of the API', () => {
    expect(Object.keys(CASES).sort()).toEqual(BEARER_ROUTES.map((route) => route.operationId).sort());
  });

  it(`answers 400 naming the parameter and changes nothing: ${RUNS} generated requests`, async () => {
    const before = await fingerprint();
    const request = fc
      .constantFrom(...Object.keys(CASES))
      .chain((operationId) => mutations(operationId).map((mutation) => ({ operationId, mutation })));
    await fc.assert(
      fc.asyncProperty(request, async ({ operationId, mutation }) => {
        const route = BEARER_ROUTES.find((r) => r.operationId === operationId)!;
        const routeCase = CASES[operationId]!;
        const response = await fetch(
          `${boot.system.api}${routeCase.path()}?${queryOf(operationId, mutation)}`,
          {
            method: route.method.toUpperCase(),
            headers: { authorization: `Bearer ${routeCase.bearer?.() ?? owner}` },
            signal: AbortSignal.timeout(20_000),
          },
        );
        const body = (await response.json()) as { status: number; errors?: { name: string }[] };
        expect({ status: response.status, type: response.headers.get('content-type') }).toEqual({
          status: 400,
          type: expect.stringMatching(/^application\/problem\+json/) as unknown,
        });
        expect(body.errors?.map((error) => error.name)).toContain(mutation.name);
        expect(await fingerprint()).toEqual(before);
      }),
      { numRuns: RUNS, seed: SEED },
    );
  }, 600_000);

  it('still serves the same requests without the mutation (the cases are valid)', async () => {
    for (const [operationId, routeCase] of Object.entries(CASES)) {
      const route = BEARER_ROUTES.find((r) => r.operationId === operationId)!;
      if (route.method !== 'get') continue;
      const response = await fetch(
        `${boot.system.api}${routeCase.path()}?${new URLSearchParams(routeCase.query).toString()}`,
        {
          headers: { authorization: `Bearer ${routeCase.bearer?.() ?? owner}` },
          signal: AbortSignal.timeout(20_000),
        },
      );
      expect([operationId, response.status]).toEqual([operationId, 200]);
    }
  }, 60_000);
});
