import { sign } from 'jsonwebtoken';

const UNITS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86_400 };

/** Parses a duration like `90s`, `30m`, `1h` or `7d` into seconds. */
export function parseTtl(value: string): number {
  const match = /^(\d{1,6})([smhd])$/.exec(value.trim());
  if (!match) throw new Error(`--ttl must look like 30m, 1h or 7d, got "${value}"`);
  return Number(match[1]) * UNITS[match[2]!]!;
}

export interface DevTokenOptions {
  secret: string;
  sub: string;
  roles: string[];
  ttlSeconds: number;
  issuer?: string;
  audience?: string;
}

/** A signed HS256 development token, the same shape an identity provider would issue. */
export function signDevToken(options: DevTokenOptions): string {
  return sign({ sub: options.sub, roles: options.roles }, options.secret, {
    algorithm: 'HS256',
    expiresIn: options.ttlSeconds,
    ...(options.issuer ? { issuer: options.issuer } : {}),
    ...(options.audience ? { audience: options.audience } : {}),
  });
}
