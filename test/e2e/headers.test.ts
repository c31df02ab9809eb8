import { randomUUID } from 'node:crypto';
import { bootSystem } from '../support/boot';
import { jsonLogLines, waitFor } from '../support/processes';
import { call, token, type ApiResponse } from '../support/system';

/** Small enough to reach in a test, the window long enough not to reset during it. */
const POINTS = 3;
const WINDOW_SECONDS = 60;
const ADMIN = { username: 'headers-admin', password: 'dashboard-password-1' };
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** A caller of its own per test, so no test spends another's quota (Redis keeps it for a window). */
const caller = (roles: string[] = []) => token(`headers-${randomUUID()}`, roles);

/** What every answer carries, whatever sent it. */
function expectCommonHeaders(response: ApiResponse | Response): void {
  const { headers } = response;
  expect(headers.get('x-content-type-options')).toBe('nosniff');
  expect(headers.get('x-frame-options')).toBe('DENY');
  expect(headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
  expect(headers.get('x-request-id')).toMatch(/^[\w.-]{1,128}$/);
}

/** An `/api` answer: for one caller, so never stored by a shared cache. */
function expectApiHeaders(response: ApiResponse): void {
  expectCommonHeaders(response);
  expect(response.headers.get('cache-control')).toBe('no-store');
}

/** The IETF HTTPAPI draft's fields: the policy, and what is left of it. */
function expectRateLimit(response: ApiResponse, remaining: number): void {
  expect(response.headers.get('ratelimit-policy')).toBe(`"default";q=${POINTS};w=${WINDOW_SECONDS}`);
  const state = /^"default";r=(\d+);t=(\d+)$/.exec(response.headers.get('ratelimit') ?? '');
  expect(state).not.toBeNull();
  expect(Number(state![1])).toBe(remaining);
  expect(Number(state![2])).toBeGreaterThan(0);
  expect(Number(state![2])).toBeLessThanOrEqual(WINDOW_SECONDS);
}

function expectProblem(response: ApiResponse, status: number): void {
  expect(response.status).toBe(status);
  expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
}

describe('response headers (OWASP REST Security Cheat Sheet)', () => {
  const boot = bootSystem({
    reset: false,
    system: {
      env: {
        LOG_LEVEL: 'info',
        RATE_LIMIT_POINTS: String(POINTS),
        RATE_LIMIT_WINDOW_SECONDS: String(WINDOW_SECONDS),
        ADMIN_USERNAME: ADMIN.username,
        ADMIN_PASSWORD: ADMIN.password,
      },
      worker: false,
    },
  });

  const api = (path: string) => `${boot.system.api}${path}`;

  /** The API's `request completed` line of the request with this id, once it is written. */
  const logLine = (id: string) =>
    waitFor(
      `the log line of request ${id}`,
      () =>
        Promise.resolve(
          jsonLogLines<{ req: { url: string } }>(boot.system.processes[0]!, `"reqId":"${id}"`)[0],
        ),
      { timeoutMs: 5_000, intervalMs: 100 },
    );

  it('a search: the common headers, no-store and the rate limit', async () => {
    const response = await call('GET', api('/api/videos/search?q=headers'), caller());
    expect(response.status).toBe(200);
    expectApiHeaders(response);
    expect(response.headers.get('x-request-id')).toMatch(UUID);
    expectRateLimit(response, POINTS - 1);
    expect(response.headers.get('retry-after')).toBeNull();
  }, 30_000);

  it('a search costs by the work it asks: a point per page of 20, twice with highlights, a point per facet', async () => {
    const twoPages = await call('GET', api('/api/videos/search?q=headers&limit=40'), caller());
    expect(twoPages.status).toBe(200);
    expectRateLimit(twoPages, POINTS - 2);

    // 1 × 2 + 1 = 3 points: the whole quota, so the caller's next search is refused.
    const spender = caller();
    const costly = await call('GET', api('/api/videos/search?q=headers&highlight=true&facets=year'), spender);
    expect(costly.status).toBe(200);
    expectRateLimit(costly, 0);
    const refused = await call('GET', api('/api/videos/search?q=headers'), spender);
    expectProblem(refused, 429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);

    // More than a window's quota (5 × 2 + 2) costs the whole quota, never more: it can be served.
    const worst = await call(
      'GET',
      api('/api/videos/search?q=headers&limit=100&highlight=true&facets=year,author'),
      caller(),
    );
    expect(worst.status).toBe(200);
    expectRateLimit(worst, 0);
  }, 30_000);

  it('a 400 problem counts against the limit and says so', async () => {
    const response = await call('GET', api('/api/videos/search?q='), caller());
    expectProblem(response, 400);
    expectApiHeaders(response);
    expectRateLimit(response, POINTS - 1);
  }, 30_000);

  it('a 404 for a missing video, after the guards: the rate limit too', async () => {
    const response = await call('POST', api(`/api/videos/${randomUUID()}/restore`), caller(['admin']));
    expectProblem(response, 404);
    expectApiHeaders(response);
    expectRateLimit(response, POINTS - 1);
  }, 30_000);

  it('a 404 for a path no route matches: the common headers, no quota to state', async () => {
    const response = await call('GET', api('/api/no-such-route'), caller());
    expectProblem(response, 404);
    expectApiHeaders(response);
    expect(response.headers.get('ratelimit')).toBeNull();
  }, 30_000);

  it('a 401 leaves before the rate limit is counted: the common headers, no RateLimit fields', async () => {
    const response = await call('GET', api('/api/videos/search?q=headers'));
    expectProblem(response, 401);
    expectApiHeaders(response);
    expect(response.headers.get('ratelimit-policy')).toBeNull();
    expect(response.headers.get('ratelimit')).toBeNull();
  }, 30_000);

  it("the router's own refusals (a path it cannot read) carry them too", async () => {
    const unauthenticated = await call('DELETE', api('/api/videos/%FF'));
    expectProblem(unauthenticated, 401);
    expectApiHeaders(unauthenticated);
    const refused = await call('DELETE', api('/api/videos/%FF'), caller());
    expectProblem(refused, 400);
    expectApiHeaders(refused);
    // Logged like any other request, under the path the client asked for.
    const id = refused.headers.get('x-request-id')!;
    expect(await logLine(id)).toMatchObject({ req: { url: '/api/videos/%FF' } });
  }, 30_000);

  it('a 429 once the quota is spent: nothing remains, and Retry-After', async () => {
    const busy = caller();
    for (let remaining = POINTS - 1; remaining >= 0; remaining -= 1) {
      const allowed = await call('GET', api('/api/videos/search?q=headers'), busy);
      expect(allowed.status).toBe(200);
      expectRateLimit(allowed, remaining);
    }
    const refused = await call('GET', api('/api/videos/search?q=headers'), busy);
    expectProblem(refused, 429);
    expectApiHeaders(refused);
    expectRateLimit(refused, 0);
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(0);
    expect(refused.headers.get('ratelimit')).toBe(`"default";r=0;t=${retryAfter}`);
  }, 30_000);

  it("echoes a caller's sane X-Request-Id, the same id its log line carries", async () => {
    const id = `trace-${randomUUID()}`;
    const response = await call('GET', api('/api/videos/search?q=headers'), caller(), {
      'x-request-id': id,
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('x-request-id')).toBe(id);
    expect(await logLine(id)).toMatchObject({
      req: { url: '/api/videos/search?q=headers' },
      statusCode: 200,
    });
  }, 30_000);

  it.each([
    ['characters outside the token alphabet', 'id with spaces;<script>'],
    ['over 128 characters', 'a'.repeat(129)],
  ])(
    'replaces a hostile X-Request-Id (%s) with its own',
    async (_case, hostile) => {
      const response = await call('GET', api('/api/videos/search?q=headers'), caller(), {
        'x-request-id': hostile,
      });
      expect(response.status).toBe(200);
      expect(response.headers.get('x-request-id')).toMatch(UUID);
    },
    30_000,
  );

  it('Swagger UI still serves at /docs, with its document', async () => {
    const page = await fetch(api('/docs'), { signal: AbortSignal.timeout(15_000) });
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expectCommonHeaders(page);
    expect(await page.text()).toContain('swagger-ui-bundle.js');
    const document = await fetch(api('/docs/json'), { signal: AbortSignal.timeout(15_000) });
    expect(document.status).toBe(200);
    expect(await document.json()).toHaveProperty('openapi');
  }, 30_000);

  it('Bull Board still serves at /admin/queues', async () => {
    const basic = Buffer.from(`${ADMIN.username}:${ADMIN.password}`).toString('base64');
    const page = await fetch(api('/admin/queues'), {
      headers: { authorization: `Basic ${basic}` },
      signal: AbortSignal.timeout(15_000),
    });
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expectCommonHeaders(page);
    expect(await page.text()).toContain('<div id="root">');
  }, 30_000);
});
