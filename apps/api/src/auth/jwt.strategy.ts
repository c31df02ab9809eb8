import { isUtf8 } from 'node:buffer';
import { createPublicKey, createSecretKey, type KeyObject } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { Inject, Injectable } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import { decode, type Algorithm } from 'jsonwebtoken';
import { passportJwtSecret } from 'jwks-rsa';
import { ExtractJwt, Strategy, type SecretOrKeyProvider } from 'passport-jwt';
import { CLOCK_TOLERANCE_SECONDS, expiresWithinLifetime } from '@app/shared/auth/token-lifetime';
import { APP_CONFIG } from '@app/shared/config/config.module';
import type { AppConfig } from '@app/shared/config/config.schema';
import { isValidSubject } from '@app/shared/ids/author-id';
import type { Actor } from '@app/shared/video/video-lifecycle';
import { bearerToken } from './authenticate';

/** Which algorithms each kind of key may verify: never `none`, never a public key as an HMAC secret. */
const SECRET_ALGORITHMS: Algorithm[] = ['HS256'];
const JWKS_ALGORITHMS: Algorithm[] = ['RS256', 'ES256'];

/**
 * The queue dashboard is opened in a browser, which cannot add a header: there (and only there) the
 * token may come from the `admin_token` cookie. The API never reads cookies, so it is not open to CSRF.
 */
function dashboardCookie(request: TokenRequest): string | null {
  if (!request.url?.startsWith('/admin/')) return null;
  const cookie = (request.headers.cookie ?? '').split(/;\s*/).find((part) => part.startsWith('admin_token='));
  if (!cookie) return null;
  try {
    return decodeURIComponent(cookie.slice('admin_token='.length));
  } catch {
    // Malformed percent-encoding: no token, so the gate answers 401 like for any other bad one.
    return null;
  }
}

/** What the strategy reads of a request: Nest hands it Fastify's request, the dashboard gate too. */
type TokenRequest = IncomingMessage;

type KeyCallback = (error: Error | null, key?: KeyObject) => void;

/**
 * Key material given to jsonwebtoken as a string is parsed on every verification (and an HMAC
 * secret first fails to parse as a public key, which throws): a large share of each request's CPU.
 * Keys are parsed once and kept; a JWKS holds a handful of keys, so the cache stays tiny.
 */
function publicKeyCache(limit = 32): (pem: string) => KeyObject {
  const keys = new Map<string, KeyObject>();
  return (pem) => {
    let key = keys.get(pem);
    if (!key) {
      if (keys.size >= limit) keys.clear();
      key = createPublicKey(pem);
      keys.set(pem, key);
    }
    return key;
  };
}

/** The caller a valid token stands for, and when the token stops being valid (its `exp`, seconds). */
export interface AuthenticatedUser extends Actor {
  tokenExpiresAt: number;
}

interface TokenClaims {
  sub?: unknown;
  exp?: unknown;
  roles?: unknown;
}

/**
 * The key HS256 tokens are verified with, if they are accepted at all: `JWT_SECRET` alone
 * (development, the tests), or beside a JWKS only when `JWT_ALLOW_HS256` says so. The identity
 * provider is then meant to be the one issuer, and the secret may be set for other uses only
 * (search cursors, `cli token`).
 */
function hs256Secret(config: AppConfig): string | undefined {
  return config.JWT_JWKS_URI && !config.JWT_ALLOW_HS256 ? undefined : config.JWT_SECRET;
}

/**
 * Picks the verification key by the token's algorithm: HS256 only ever with `JWT_SECRET`, RS256
 * and ES256 only ever with a key from the JWKS (cached, refreshed on an unknown `kid`, rate-limited).
 */
function keyProvider(config: AppConfig) {
  const jwks = config.JWT_JWKS_URI
    ? passportJwtSecret({
        jwksUri: config.JWT_JWKS_URI,
        cache: true,
        cacheMaxAge: 10 * 60_000,
        rateLimit: true,
        jwksRequestsPerMinute: 10,
      })
    : undefined;
  const hs256 = hs256Secret(config);
  const secret = hs256 ? createSecretKey(Buffer.from(hs256)) : undefined;
  const publicKey = publicKeyCache();
  return (request: TokenRequest, rawToken: string, done: KeyCallback) => {
    // A payload that is not UTF-8 would be read with U+FFFD in place of its bad bytes, so the
    // subject would name someone the issuer never signed for.
    if (!isUtf8(Buffer.from(rawToken.split('.')[1] ?? '', 'base64url'))) {
      return done(new Error('token payload is not UTF-8'));
    }
    const header = decode(rawToken, { complete: true })?.header;
    // RFC 7515 §4.1.11: a token marking header extensions critical must be refused unless each is
    // understood, and this API understands none (jsonwebtoken ignores `crit`).
    if (header && 'crit' in header) return done(new Error('token has critical header extensions'));
    const algorithm = header?.alg as Algorithm | undefined;
    if (algorithm && SECRET_ALGORITHMS.includes(algorithm) && secret) return done(null, secret);
    if (algorithm && JWKS_ALGORITHMS.includes(algorithm) && jwks) {
      return jwks(request, rawToken, (error, key) => {
        if (error || !key) return done((error as Error | null) ?? new Error('no signing key'));
        try {
          return done(null, publicKey(typeof key === 'string' ? key : key.toString()));
        } catch (parseError) {
          return done(parseError as Error);
        }
      });
    }
    return done(new Error(`token algorithm ${String(algorithm)} is not accepted`));
  };
}

@Injectable()
export class JwtStrategy extends PassportStrategy(Strategy, 'jwt') {
  private readonly maxLifetimeSeconds: number;

  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    super({
      jwtFromRequest: ExtractJwt.fromExtractors([bearerToken, dashboardCookie]),
      // passport-jwt's types predate KeyObject; it hands the key to jsonwebtoken, which takes one.
      secretOrKeyProvider: keyProvider(config) as unknown as SecretOrKeyProvider<TokenRequest>,
      algorithms: [
        ...(hs256Secret(config) ? SECRET_ALGORITHMS : []),
        ...(config.JWT_JWKS_URI ? JWKS_ALGORITHMS : []),
      ],
      ignoreExpiration: false,
      ...(config.JWT_ISSUER ? { issuer: config.JWT_ISSUER } : {}),
      ...(config.JWT_AUDIENCE ? { audience: config.JWT_AUDIENCE } : {}),
      jsonWebTokenOptions: { clockTolerance: CLOCK_TOLERANCE_SECONDS },
    });
    this.maxLifetimeSeconds = config.JWT_MAX_LIFETIME;
  }

  /**
   * jsonwebtoken accepts a token without `exp` or `sub`, or valid for ever; this API does not, nor
   * a `sub` that could not be an author id (the subject is the author id it owns, by the same rule)
   * or is blank.
   */
  validate(claims: TokenClaims): AuthenticatedUser | false {
    if (!isValidSubject(claims.sub)) return false;
    if (!expiresWithinLifetime(claims.exp, this.maxLifetimeSeconds)) return false;
    const roles = Array.isArray(claims.roles)
      ? claims.roles.filter((r): r is string => typeof r === 'string')
      : [];
    return { sub: claims.sub, roles, tokenExpiresAt: claims.exp };
  }
}
