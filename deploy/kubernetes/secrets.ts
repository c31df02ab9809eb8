/**
 * The Secret the operator creates before the first deployment (docs/operations.md): where the
 * stores are and how to log in to them, and the keys that sign tokens. The repository holds no
 * value of it; the pods read every key it has as a variable.
 */
import type { AppConfig } from '../../libs/shared/src/config/config.schema.ts';

export const SECRET_NAME = 'video-search-secrets';

/**
 * Redis is given in two parts, an address (`host:port`) and a password, from which the pods build
 * REDIS_URL (`redisUrl` in pods.ts): a Secret of existing deployments keeps working, and a tool
 * that takes the parts (a Redis exporter, a `redis-cli -a`) reads the same ones.
 */
export const REDIS_PARTS = { address: 'REDIS_ADDRESS', password: 'REDIS_PASSWORD' } as const;

export interface SecretKey {
  name: keyof AppConfig | (typeof REDIS_PARTS)[keyof typeof REDIS_PARTS];
  /** A deployment without it fails to start, or would fall back to a development default. */
  required: boolean;
}

export const SECRET_KEYS: readonly SecretKey[] = [
  { name: 'DATABASE_URL', required: true },
  { name: REDIS_PARTS.address, required: true },
  // May be empty (a Redis without a password), but present: REDIS_URL names it.
  { name: REDIS_PARTS.password, required: true },
  { name: 'ELASTICSEARCH_URL', required: true },
  { name: 'S3_ENDPOINT', required: true },
  // Both or neither: without them the AWS SDK's default credential chain (a web identity, as with
  // EKS' IRSA or Pod Identity; AWS_* variables), as NODE_ENV is production.
  { name: 'S3_ACCESS_KEY_ID', required: false },
  { name: 'S3_SECRET_ACCESS_KEY', required: false },
  // Where the media are, beside S3_ENDPOINT, when they differ from the defaults (us-east-1,
  // videos, path-style addressing).
  { name: 'S3_REGION', required: false },
  { name: 'S3_BUCKET', required: false },
  { name: 'S3_FORCE_PATH_STYLE', required: false },
  // The API needs it or JWT_JWKS_URI (with JWT_ISSUER and JWT_AUDIENCE); it also derives the
  // cursor key from it unless SEARCH_CURSOR_SECRET is set.
  { name: 'JWT_SECRET', required: true },
  { name: 'ADMIN_USERNAME', required: false },
  { name: 'ADMIN_PASSWORD', required: false },
  { name: 'SEARCH_CURSOR_SECRET', required: false },
  { name: 'JWT_JWKS_URI', required: false },
  { name: 'JWT_ISSUER', required: false },
  { name: 'JWT_AUDIENCE', required: false },
  { name: 'WEBHOOK_URLS', required: false },
  { name: 'WEBHOOK_SECRET', required: false },
];
