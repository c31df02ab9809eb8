import fc from 'fast-check';
import { bootSystem } from '../support/boot';
import { seedVideos } from '../support/seed';
import { token } from '../support/system';

/** How many generated requests `npm test` sends; `npm run chaos` sends 10,000. */
const RUNS = Number(process.env.FUZZ_RUNS ?? 1_500);

const users = [token('author-1'), token('someone'), token('boss', ['admin'])];
const junkTokens = [
  '',
  'x',
  'a.b.c',
  'eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4In0.',
  'Bearer',
  '\u00e9\u00ff'.repeat(40),
  'z'.repeat(4_000),
];

/** Anything a client might put in a parameter: text of every kind, near-valid values, and repeats. */
const value = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 30 }),
  fc.string({ unit: 'binary', maxLength: 20 }),
  fc.constantFrom(
    '',
    ' ',
    '0',
    '-1',
    '1e3',
    '3650',
    '3651',
    '10000',
    'true',
    'TRUE',
    'null',
    '[]',
    '{}',
    '%',
    '%zz',
    '\u0000',
  ),
  fc.integer({ min: -1_000_000, max: 1_000_000 }).map(String),
  fc.date({ noInvalidDate: true }).map((d) => d.toISOString()),
  fc.constantFrom('2024-05-01', '2024-02-30', '2024-05-01T10:00:00+02:00', '2024-05-01T25:00:00Z'),
  fc.string({ minLength: 250, maxLength: 300 }),
);
const names = fc.constantFrom(
  'q',
  'authorId',
  'dateFrom',
  'dateTo',
  'page',
  'limit',
  'permanent',
  'retentionDays',
  'dryRun',
  'other',
  'q[]',
  'page[x]',
);
const query = fc.array(fc.tuple(names, value), { maxLength: 6 });
const id = fc.oneof(
  fc.uuid(),
  fc.uuid().map((u) => u.toUpperCase()),
  fc.string({ maxLength: 50 }),
  fc.constantFrom(
    '00000000-0000-0000-0000-000000000000',
    'ffffffff-ffff-ffff-ffff-ffffffffffff',
    '..',
    '%2F',
    '{x}',
  ),
);
const authorId = fc.oneof(
  fc.constantFrom('author-1', 'someone', 'boss'),
  fc.string({ maxLength: 140 }),
  fc.string({ unit: 'grapheme', minLength: 120, maxLength: 140 }),
);
const route = fc.oneof(
  fc.record({ method: fc.constant('GET'), path: fc.constant('/api/videos/search') }),
  fc.record({ method: fc.constant('DELETE'), path: id.map((v) => `/api/videos/${encodeURIComponent(v)}`) }),
  fc.record({
    method: fc.constant('POST'),
    path: id.map((v) => `/api/videos/${encodeURIComponent(v)}/restore`),
  }),
  fc.record({
    method: fc.constantFrom('GET', 'PUT', 'PATCH'),
    path: id.map((v) => `/api/videos/${encodeURIComponent(v)}`),
  }),
  fc.record({ method: fc.constantFrom('GET', 'DELETE'), path: fc.constant('/api/videos/trash') }),
  fc.record({ method: fc.constant('POST'), path: fc.constant('/api/videos/trash/restore') }),
  fc.record({
    method: fc.constant('GET'),
    path: id.map((v) => `/api/videos/${encodeURIComponent(v)}/deletion`),
  }),
  fc.record({
    method: fc.constant('DELETE'),
    path: authorId.map((v) => `/api/authors/${encodeURIComponent(v)}/videos`),
  }),
  fc.record({ method: fc.constant('GET'), path: id.map((v) => `/api/erasures/${encodeURIComponent(v)}`) }),
  fc.record({
    method: fc.constant('GET'),
    path: id.map((v) => `/api/trash-operations/${encodeURIComponent(v)}`),
  }),
  fc.record({ method: fc.constantFrom('GET', 'PUT'), path: fc.constant('/api/search/synonyms') }),
);
const auth = fc.oneof(
  fc.constantFrom(...users).map((t) => `Bearer ${t}`),
  fc.constantFrom(...users).map((t) => `bearer ${t}`),
  fc.constantFrom(...junkTokens).map((t) => `Bearer ${t}`),
  fc.constantFrom('', 'Basic dXNlcjpwYXNz', 'Token abc'),
);

describe('fuzzing every route and parameter', () => {
  const seen = new Map<number, number>();
  const boot = bootSystem({
    seed: (context) => seedVideos(context, 20, { authorId: 'author-1' }),
    system: { worker: false },
  });

  it(`answers ${RUNS} generated requests without a 500, every error as problem+json`, async () => {
    await fc.assert(
      fc.asyncProperty(route, query, auth, async ({ method, path }, params, authorization) => {
        const search = params.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&');
        const response = await fetch(`${boot.system.api}${path}${search ? `?${search}` : ''}`, {
          method,
          headers: authorization ? { authorization } : {},
          signal: AbortSignal.timeout(15_000),
        });
        const body = await response.text();
        seen.set(response.status, (seen.get(response.status) ?? 0) + 1);
        expect(response.status).toBeLessThan(500);
        if (response.status >= 400 && response.status !== 431) {
          expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
          expect(JSON.parse(body)).toMatchObject({ status: response.status });
        }
      }),
      { numRuns: RUNS, seed: 20261121 },
    );
    // The run reached past authentication and validation into the handlers.
    expect([...seen.keys()]).toEqual(expect.arrayContaining([200, 400, 401, 404]));
    expect((await fetch(`${boot.system.api}/health/ready`)).status).toBe(200);
  }, 300_000);
});
