import { createHmac, randomUUID } from 'node:crypto';
import { sign } from 'jsonwebtoken';
import {
  generateSigningKey,
  startJwksServer,
  type JwksServer,
  type SigningKey,
} from '../support/jwks-server';
import { bootSystem } from '../support/boot';
import { call, type ApiResponse } from '../support/system';
import { remains, seedVideos } from '../support/seed';

const SECRET = process.env.JWT_SECRET!;
const ISSUER = 'https://issuer.test';
const AUDIENCE = 'videos-api';

/** Published in the JWKS. */
const rsa = generateSigningKey('RS256', 'rsa-key-1');
const ec = generateSigningKey('ES256', 'ec-key-1');
/** Not published, but claims the kid of one that is. */
const impostor = generateSigningKey('RS256', rsa.kid);

type Claims = Record<string, unknown>;

/** Seconds since the epoch, `offset` seconds from now. */
const at = (offset = 0) => Math.floor(Date.now() / 1000) + offset;

/** Claims that pass every check; a change set to `undefined` drops that claim. */
function claims(changes: Claims = {}): Claims {
  const all: Claims = {
    sub: 'user-1',
    roles: [],
    iss: ISSUER,
    aud: AUDIENCE,
    iat: at(),
    exp: at(300),
    ...changes,
  };
  return Object.fromEntries(Object.entries(all).filter(([, value]) => value !== undefined));
}

const hs256 = (changes?: Claims) => sign(claims(changes), SECRET, { algorithm: 'HS256' });

const signedBy = (key: SigningKey, kid = key.kid, changes?: Claims) =>
  sign(claims(changes), key.privateKey, { algorithm: key.alg, keyid: kid });

const encode = (part: unknown) => Buffer.from(JSON.stringify(part)).toString('base64url');

/** A token assembled by hand, for what no JWT library will sign. */
function handmade(header: Claims, payload: Claims, signature: (input: string) => string = () => ''): string {
  const input = `${encode(header)}.${encode(payload)}`;
  return `${input}.${signature(input)}`;
}

/** The JSON text of claims() with some values written as raw JSON (numbers JSON.stringify cannot write). */
function claimsText(raw: Record<string, string>): string {
  const kept = claims(Object.fromEntries(Object.keys(raw).map((name) => [name, undefined])));
  const written = Object.entries(raw).map(([name, value]) => `,"${name}":${value}`);
  return `${JSON.stringify(kept).slice(0, -1)}${written.join('')}}`;
}

/** A valid HS256 signature over a payload given as JSON text. */
function signedText(payload: string): string {
  const input = `${encode({ alg: 'HS256', typ: 'JWT' })}.${Buffer.from(payload).toString('base64url')}`;
  return `${input}.${createHmac('sha256', SECRET).update(input).digest('base64url')}`;
}

/** A valid HS256 token whose payload was then changed, signature kept. */
function tampered(): string {
  const parts = hs256().split('.');
  parts[1] = encode(claims({ sub: 'someone-else', roles: ['admin'] }));
  return parts.join('.');
}

/** RFC 6750 §3 and docs/contract.md §4: a problem document and a Bearer challenge, nothing internal. */
function expectUnauthorized(response: ApiResponse, tokenPresented: boolean): void {
  expect(response.status).toBe(401);
  const challenge = response.headers.get('www-authenticate') ?? '';
  expect(challenge).toMatch(/^Bearer(\s|$)/);
  if (tokenPresented) expect(challenge).toContain('error="invalid_token"');
  else expect(challenge).not.toContain('error=');
  expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  expect(response.body).toMatchObject({ status: 401, title: 'Unauthorized' });
  expect(Object.keys(response.body).sort()).toEqual(['detail', 'status', 'title', 'type']);
  expect(JSON.stringify(response.body)).not.toMatch(/\bat .+:\d+|node_modules|Error\b|jwt|signature|kid/i);
}

/** Both key sources, as a deployment moving from its own secret to an identity provider has them. */
const bothKeys = (jwks: JwksServer) => ({
  JWT_SECRET: SECRET,
  JWT_JWKS_URI: jwks.uri,
  JWT_ISSUER: ISSUER,
  JWT_AUDIENCE: AUDIENCE,
});

describe('authentication on /api/** (contract §3)', () => {
  let jwks: JwksServer;

  beforeAll(async () => {
    jwks = await startJwksServer([rsa, ec]);
  });
  const boot = bootSystem({
    reset: false,
    // HS256 beside the JWKS only because it is enabled: the cases below sign most tokens with it.
    system: { env: () => ({ ...bothKeys(jwks), JWT_ALLOW_HS256: 'true' }), worker: false },
  });
  afterAll(() => jwks?.close());

  const search = (headers: Record<string, string>) =>
    call('GET', `${boot.system.api}/api/videos/search?q=test`, undefined, headers);
  const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

  describe('accepts', () => {
    it.each<[string, () => Record<string, string>]>([
      ['HS256 signed with JWT_SECRET', () => bearer(hs256())],
      ['the scheme written "bearer"', () => ({ authorization: `bearer ${hs256()}` })],
      ['the scheme written "BEARER"', () => ({ authorization: `BEARER ${hs256()}` })],
      ['RS256 signed by a key in the JWKS', () => bearer(signedBy(rsa))],
      ['ES256 (P-256) signed by a key in the JWKS', () => bearer(signedBy(ec))],
      ['a token expired 10 s ago (clock skew ≤ 30 s)', () => bearer(hs256({ iat: at(-600), exp: at(-10) }))],
      ['exp exactly JWT_MAX_LIFETIME (30 days) ahead', () => bearer(hs256({ exp: at(30 * 86_400) }))],
      ['exp written by hand as JSON', () => bearer(signedText(claimsText({ exp: String(at(300)) })))],
    ])('%s', async (_case, headers) => {
      const response = await search(headers());
      expect(response.status).toBe(200);
      expect(response.body).toHaveProperty('items');
    });

    it('takes roles from the `roles` claim: an admin reaches the handler (404 for a missing video)', async () => {
      const admin = hs256({ sub: 'boss', roles: ['admin'] });
      const response = await call('POST', `${boot.system.api}/api/videos/${randomUUID()}/restore`, admin);
      expect(response.status).toBe(404);
    });
  });

  describe('answers 401 with a plain Bearer challenge when no bearer token is presented', () => {
    it.each<[string, Record<string, string>]>([
      ['no Authorization header', {}],
      ['the Basic scheme', { authorization: 'Basic dXNlcjpwYXNz' }],
      ['"Bearer " with an empty token', { authorization: 'Bearer ' }],
    ])('%s', async (_case, headers) => {
      expectUnauthorized(await search(headers), false);
    });
  });

  describe('answers 401 with error="invalid_token" to a bad token', () => {
    it.each<[string, () => string]>([
      ['garbage', () => 'garbage'],
      ['three dots of garbage', () => 'a.b.c'],
      ['alg "none" with an empty signature', () => handmade({ alg: 'none', typ: 'JWT' }, claims())],
      ['alg "NONE" with an empty signature', () => handmade({ alg: 'NONE', typ: 'JWT' }, claims())],
      [
        'HS256 keyed with the RS256 public key PEM from the JWKS (key confusion)',
        () =>
          handmade({ alg: 'HS256', typ: 'JWT', kid: rsa.kid }, claims(), (input) =>
            createHmac('sha256', rsa.publicPem).update(input).digest('base64url'),
          ),
      ],
      ['expired 2 minutes ago (beyond the 30 s leeway)', () => hs256({ iat: at(-600), exp: at(-120) })],
      ['not valid before 5 minutes from now', () => hs256({ nbf: at(300), exp: at(600) })],
      ['a wrong issuer', () => hs256({ iss: 'https://elsewhere.test' })],
      ['a wrong audience', () => hs256({ aud: 'another-api' })],
      ['no issuer', () => hs256({ iss: undefined })],
      ['no audience', () => hs256({ aud: undefined })],
      ['no exp', () => hs256({ exp: undefined })],
      ['exp 1e300 (valid for ever)', () => hs256({ exp: 1e300 })],
      // JSON.stringify writes Infinity as null: the payload is written by hand, as an attacker would.
      ['exp 1e999 (JSON that parses to Infinity)', () => signedText(claimsText({ exp: '1e999' }))],
      ['exp 1e309 (JSON that parses to Infinity)', () => signedText(claimsText({ exp: '1e309' }))],
      ['exp more than JWT_MAX_LIFETIME (30 days) ahead', () => hs256({ exp: at(30 * 86_400 + 3_600) })],
      ['exp as a string', () => signedText(claimsText({ exp: `"${at(300)}"` }))],
      ['exp 31 days ahead, from the JWKS', () => signedBy(rsa, rsa.kid, { exp: at(31 * 86_400) })],
      ['no sub', () => hs256({ sub: undefined })],
      ['an empty sub', () => hs256({ sub: '' })],
      ['a blank sub', () => hs256({ sub: '   ' })],
      [
        'a valid HS256 signature over a header with `crit` (an extension this API does not know)',
        () =>
          handmade({ alg: 'HS256', typ: 'JWT', crit: ['exp-ext'], 'exp-ext': true }, claims(), (input) =>
            createHmac('sha256', SECRET).update(input).digest('base64url'),
          ),
      ],
      ['a tampered payload', tampered],
      ['a valid token followed by another word (malformed header)', () => `${hs256()} extra`],
      ['two valid tokens', () => `${hs256()} ${hs256()}`],
      [
        'RS256 from the JWKS with a wrong issuer',
        () => signedBy(rsa, rsa.kid, { iss: 'https://elsewhere.test' }),
      ],
      ['RS256 from the JWKS with a wrong audience', () => signedBy(rsa, rsa.kid, { aud: 'another-api' })],
      ['RS256 from the JWKS without an issuer', () => signedBy(rsa, rsa.kid, { iss: undefined })],
      ['ES256 from the JWKS without an audience', () => signedBy(ec, ec.kid, { aud: undefined })],
      ['RS256 signed by a key not in the JWKS under a kid that is', () => signedBy(impostor)],
      ['RS256 under a kid not in the JWKS', () => signedBy(rsa, 'no-such-kid')],
      ['ES256 under the kid of the RSA key', () => signedBy(ec, rsa.kid)],
      [
        'HS512 with the right secret (algorithm not allowed)',
        () => sign(claims(), SECRET, { algorithm: 'HS512' }),
      ],
      [
        'RS384 by a key in the JWKS (algorithm not allowed)',
        () => sign(claims(), rsa.privateKey, { algorithm: 'RS384', keyid: rsa.kid }),
      ],
    ])('%s', async (_case, token) => {
      expectUnauthorized(await search(bearer(token())), true);
    });

    /** Signed with another secret, so the only right answers are "too large" or "invalid". */
    const oversized = (bytes: number) =>
      sign(claims({ padding: 'x'.repeat(bytes) }), `not-${SECRET}`, { algorithm: 'HS256' });

    it('a large (8 KB) token that fits the header limit is checked like any other', async () => {
      expectUnauthorized(await search(bearer(oversized(8_000))), true);
    });

    it('a huge (20 KB) token is refused (401 or 431), never with a 5xx', async () => {
      const response = await search(bearer(oversized(20_000)));
      expect(response.status).not.toBe(200);
      expect(response.status).toBeLessThan(500);
      expect([401, 431]).toContain(response.status);
    });
  });

  describe('guards the routes the router matches, however the path is spelled', () => {
    // The router decodes the path before matching, so `/%61pi/videos/…` is the DELETE route.
    it.each(['/%61pi/videos', '/api/%76ideos', '/%61%70%69/%76ideos'])(
      'a permanent delete at %s without a token is refused and deletes nothing',
      async (prefix) => {
        const [id] = await seedVideos(boot.context, 1);
        const response = await call('DELETE', `${boot.system.api}${prefix}/${id}?permanent=true`);
        expectUnauthorized(response, false);
        expect((await remains(boot.context, id!)).row).toEqual({ state: 'active' });
      },
    );

    it('a search at /%61pi/videos/search without a token is 401', async () => {
      expectUnauthorized(await call('GET', `${boot.system.api}/%61pi/videos/search?q=test`), false);
    });

    it('health stays public, and so do metrics on their own port', async () => {
      expect((await call('GET', `${boot.system.api}/health/live`)).status).toBe(200);
      expect((await fetch(`${boot.system.apiMetrics}/metrics`)).status).toBe(200);
    });
  });

  describe('authentication comes before input validation', () => {
    const invalid = () =>
      call('DELETE', `${boot.system.api}/api/videos/not-a-uuid`, hs256({ exp: at(-120) }));

    it('a bad id without a token is 401, not 400', async () => {
      expectUnauthorized(await call('DELETE', `${boot.system.api}/api/videos/not-a-uuid`), false);
    });

    it('a bad id with an expired token is 401, not 400', async () => {
      expectUnauthorized(await invalid(), true);
    });

    it('a bad id with a valid token is 400', async () => {
      expect((await call('DELETE', `${boot.system.api}/api/videos/not-a-uuid`, hs256())).status).toBe(400);
    });

    // Paths the router itself cannot read: no route is known, so the token decides first.
    it.each([
      ['broken percent-encoding', '/api/videos/%FF'],
      ['an id longer than the router reads', `/api/videos/${'a'.repeat(2_100)}`],
    ])('%s: 401 without a valid token, else a 400 problem', async (_case, path) => {
      expectUnauthorized(await call('DELETE', `${boot.system.api}${path}`), false);
      expectUnauthorized(await call('DELETE', `${boot.system.api}${path}`, hs256({ exp: at(-120) })), true);
      const refused = await call('DELETE', `${boot.system.api}${path}`, hs256());
      expect(refused.status).toBe(400);
      expect(refused.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(refused.body).toMatchObject({ status: 400, title: 'Bad Request' });
      expect(JSON.stringify(refused.body)).not.toMatch(/FST_|statusCode/);
    });
  });
});

describe('HS256 beside a JWKS (contract §3)', () => {
  let jwks: JwksServer;

  beforeAll(async () => {
    jwks = await startJwksServer([rsa]);
  });
  // The secret stays set (cursors, `cli token`), but JWT_ALLOW_HS256 is not.
  const boot = bootSystem({ reset: false, system: { env: () => bothKeys(jwks), worker: false } });
  afterAll(() => jwks?.close());

  const search = (token: string) => call('GET', `${boot.system.api}/api/videos/search?q=test`, token);

  it('refuses an HS256 token signed with JWT_SECRET unless JWT_ALLOW_HS256 is true', async () => {
    expectUnauthorized(await search(hs256()), true);
    expectUnauthorized(await search(hs256({ roles: ['admin'] })), true);
  });

  it("accepts the identity provider's tokens", async () => {
    expect((await search(signedBy(rsa))).status).toBe(200);
  });
});

describe('JWT_MAX_LIFETIME (contract §3)', () => {
  const boot = bootSystem({ reset: false, system: { env: { JWT_MAX_LIFETIME: '3600' }, worker: false } });

  const search = (token: string) => call('GET', `${boot.system.api}/api/videos/search?q=test`, token);

  it('accepts a token valid for up to the configured lifetime, and refuses one valid for longer', async () => {
    expect((await search(hs256({ iss: undefined, aud: undefined, exp: at(3_600) }))).status).toBe(200);
    expectUnauthorized(await search(hs256({ iss: undefined, aud: undefined, exp: at(3_600 + 120) })), true);
    expectUnauthorized(await search(hs256({ iss: undefined, aud: undefined, exp: at(86_400) })), true);
  });
});
