import { waitFor } from '../support/processes';
import { seedVideos } from '../support/seed';
import { bootSystem } from '../support/boot';
import { call, token, type ApiResponse } from '../support/system';

/**
 * The search's synonym set (docs/contract.md §7.3) through running API processes: admins only,
 * bad rules named and nothing saved, entity tags guarding concurrent saves, and a saved set in
 * force on every process (the one that saved it at once, the others within 10 s) and after a
 * restart, with no reindex.
 */
const admin = token('synonym-admin', ['admin']);
const reader = token('synonym-reader');
const SYNONYMS = '/api/search/synonyms';
const PROBLEM = /^application\/problem\+json/;

interface Problem {
  status: number;
  errors?: { name: string; reason: string }[];
}

interface SearchPage {
  items: { id: string }[];
  total: number;
}

/** The rules the catalogue's words are found by: `k8s` and `orchestrator` are in no video. */
const RULES = ['k8s => kubernetes', 'orchestrator, container scheduler', 'js, javascript'];

describe('the synonym set (contract §7.3)', () => {
  /** A second API process, which learns of a saved set from MySQL alone. */
  let second: string;
  let kubernetes: string;
  let scheduler: string;

  // Other files search without synonyms: the set is emptied before the boot's hooks close the stores.
  afterAll(() => boot.context.reset(), 60_000);
  const boot = bootSystem({
    seed: async (context) => {
      [kubernetes, scheduler] = (await seedVideos(context, 2, {
        title: (n) => ['Kubernetes operators in production', 'A container scheduler from scratch'][n]!,
        description: () => 'A talk.',
        tags: () => [],
      })) as [string, string];
      await seedVideos(context, 3, { title: (n) => `Python packaging, part ${n}` });
    },
    system: { worker: false },
    timeoutMs: 180_000,
  });
  beforeAll(async () => {
    second = (await boot.system.startApi()).url;
  }, 60_000);

  const put = (body: unknown, headers: Record<string, string> = {}, bearer = admin, api = boot.system.api) =>
    fetch(`${api}${SYNONYMS}`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${bearer}`, 'content-type': 'application/json', ...headers },
      body: typeof body === 'string' ? body : JSON.stringify(body),
      signal: AbortSignal.timeout(20_000),
    }).then(async (response): Promise<ApiResponse> => {
      const text = await response.text();
      const body = (text ? JSON.parse(text) : {}) as Record<string, unknown>;
      return { status: response.status, headers: response.headers, body };
    });
  const read = (api = boot.system.api, headers: Record<string, string> = {}) =>
    call<{ rules: string[] }>('GET', `${api}${SYNONYMS}`, admin, headers);
  const search = (api: string, q: string) =>
    call<SearchPage>('GET', `${api}/api/videos/search?q=${encodeURIComponent(q)}`, reader);
  const found = async (api: string, q: string) => (await search(api, q)).body.items.map((item) => item.id);

  it('is for admins only: 401 without a token, 403 for anyone else, reading or saving', async () => {
    expect((await call('GET', `${boot.system.api}${SYNONYMS}`)).status).toBe(401);
    expect((await call('GET', `${boot.system.api}${SYNONYMS}`, reader)).status).toBe(403);
    const refused = await put({ rules: RULES }, {}, reader);
    expect(refused.status).toBe(403);
    expect(refused.headers.get('content-type')).toMatch(PROBLEM);
    expect((await put({ rules: RULES }, {}, 'not-a-token')).status).toBe(401);
    expect((await read()).body).toEqual({ rules: [] });
  }, 30_000);

  it('starts empty, with an ETag, and answers 304 to a client that holds it', async () => {
    const empty = await read();
    expect(empty).toMatchObject({ status: 200, body: { rules: [] } });
    const etag = empty.headers.get('etag')!;
    expect(etag).toMatch(/^"[^"]+"$/);
    const unchanged = await fetch(`${boot.system.api}${SYNONYMS}`, {
      headers: { authorization: `Bearer ${admin}`, 'if-none-match': etag },
      signal: AbortSignal.timeout(15_000),
    });
    expect(unchanged.status).toBe(304);
    expect(unchanged.headers.get('etag')).toBe(etag);
  }, 30_000);

  it('refuses bad rules, naming each by its index, and saves nothing', async () => {
    const before = await read();
    const answer = await put({ rules: ['js, javascript', 'k8s =>', 'a => b => c', 'ok, fine', 'x, , y'] });
    expect(answer.status).toBe(400);
    expect(answer.headers.get('content-type')).toMatch(PROBLEM);
    const errors = (answer.body as unknown as Problem).errors!;
    expect(errors.map((error) => error.name)).toEqual(['rules[1]', 'rules[2]', 'rules[4]']);
    expect(errors[0]!.reason).toMatch(/rules\[1\]: "k8s =>" has no term after "=>"/);
    expect(errors[1]!.reason).toMatch(/more than once/);
    expect(errors[2]!.reason).toMatch(/empty/);
    // A field the body does not take, a rule that is not text, too many terms, a body that is no JSON.
    const unknown = await put({ rules: [], comment: 'x' });
    expect([unknown.status, (unknown.body as unknown as Problem).errors]).toEqual([
      400,
      [{ name: 'comment', reason: expect.stringMatching(/not a field/) as unknown }],
    ]);
    const notText = await put({ rules: ['a, b', 7] });
    expect((notText.body as unknown as Problem).errors?.map((e) => e.name)).toEqual(['rules[1]']);
    const long = await put({ rules: [Array.from({ length: 11 }, (_, i) => `t${i}`).join(', ')] });
    expect((long.body as unknown as Problem).errors?.[0]?.reason).toMatch(/11 terms: at most 10/);
    expect((await put('{"rules": [')).status).toBe(400);
    expect((await put({ rules: ['a, b'] }, { 'content-type': 'text/plain' })).status).toBe(415);
    const after = await read();
    expect(after.body).toEqual(before.body);
    expect(after.headers.get('etag')).toBe(before.headers.get('etag'));
  }, 30_000);

  it('finds a video by a synonym it does not hold only once the rule is saved, on every process', async () => {
    for (const api of [boot.system.api, second]) {
      expect(await found(api, 'k8s')).toEqual([]);
      expect(await found(api, 'orchestrator')).toEqual([]);
    }
    const saved = await put({ rules: RULES });
    expect(saved).toMatchObject({ status: 200, body: { rules: RULES } });
    expect(saved.headers.get('etag')).toMatch(/^"[^"]+"$/);
    // The process that saved it searches with it at once.
    expect(await found(boot.system.api, 'k8s')).toEqual([kubernetes]);
    expect(await found(boot.system.api, 'orchestrator')).toEqual([scheduler]);
    // Another process reads it from MySQL within the contract's 10 seconds.
    await waitFor(
      'the second API to search with the saved set',
      async () => ((await found(second, 'k8s')).includes(kubernetes) ? true : undefined),
      { timeoutMs: 10_000 },
    );
    expect(await found(second, 'orchestrator')).toEqual([scheduler]);
    // One way: the mapping's right side does not find its left; an equivalence finds both ways.
    expect(await found(second, 'kubernetes')).toEqual([kubernetes]);
    expect(await found(second, 'container scheduler')).toContain(scheduler);
    const read2 = await read(second);
    expect(read2.body).toEqual({ rules: RULES });
    expect(read2.headers.get('etag')).toBe(saved.headers.get('etag'));
  }, 60_000);

  it('widens suggestions and highlights too', async () => {
    const suggestions = await call<{ items: { id: string }[] }>(
      'GET',
      `${boot.system.api}/api/videos/suggest?q=k8s`,
      reader,
    );
    expect(suggestions.body.items.map((item) => item.id)).toEqual([kubernetes]);
    const highlighted = await call<{ items: { highlights: { title?: string[] } }[] }>(
      'GET',
      `${boot.system.api}/api/videos/search?q=k8s&highlight=true`,
      reader,
    );
    expect(highlighted.body.items[0]!.highlights.title).toEqual([
      '<mark>Kubernetes</mark> operators in production',
    ]);
  }, 30_000);

  it('replaces the set only if it is still the one If-Match names: 412 and nothing changed otherwise', async () => {
    const current = await read();
    const etag = current.headers.get('etag')!;
    const stale = await put({ rules: ['stale, rules'] }, { 'if-match': '"0-0000000000000000"' });
    expect(stale.status).toBe(412);
    expect(stale.headers.get('content-type')).toMatch(PROBLEM);
    expect((await put({ rules: ['weak, tag'] }, { 'if-match': `W/${etag}` })).status).toBe(412);
    expect((await put({ rules: ['bad, header'] }, { 'if-match': 'no-quotes' })).status).toBe(400);
    expect((await read()).body).toEqual({ rules: RULES });
    // Two editors of the same version: the first wins, the second is told.
    const first = await put({ rules: [...RULES, 'py, python'] }, { 'if-match': etag });
    expect(first.status).toBe(200);
    const second2 = await put({ rules: RULES.slice(1) }, { 'if-match': etag });
    expect(second2.status).toBe(412);
    expect((await read()).body).toEqual({ rules: [...RULES, 'py, python'] });
    // A save without If-Match: the last writer wins.
    expect((await put({ rules: RULES })).status).toBe(200);
    expect((await read()).body).toEqual({ rules: RULES });
  }, 30_000);

  it('keeps the set through a restart: a new process searches with it from its first request', async () => {
    await boot.system.processes[0]!.stop();
    const restarted = (await boot.system.startApi()).url;
    expect(await found(restarted, 'k8s')).toEqual([kubernetes]);
    expect((await read(restarted)).body).toEqual({ rules: RULES });
  }, 90_000);

  it('takes the largest set the contract allows: 10,000 rules of ten 64-letter terms', async () => {
    const letters = (n: number) => n.toString(26).replace(/[0-9]/g, (digit) => 'qrstuvwxyz'[Number(digit)]!);
    const term = (rule: number, at: number) => `${letters(rule * 10 + at)}`.padEnd(64, 'x');
    const rules = Array.from({ length: 10_000 }, (_, rule) =>
      Array.from({ length: 10 }, (_, at) => term(rule, at)).join(', '),
    );
    const saved = await put({ rules }, {}, admin, second);
    expect([saved.status, (saved.body as { rules: string[] }).rules.length]).toEqual([200, 10_000]);
    expect((await read(second)).body).toEqual({ rules });
  }, 120_000);

  it('removes every synonym when saved empty', async () => {
    // The first process was stopped above: the second one saves.
    expect((await put({ rules: [] }, {}, admin, second)).status).toBe(200);
    expect(await found(second, 'k8s')).toEqual([]);
  }, 30_000);
});
