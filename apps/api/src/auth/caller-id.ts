import { createHash } from 'node:crypto';

/**
 * A caller's key wherever the API counts or binds something to it (the rate limit, cursor walks
 * and their points in time): the subject's hash, so an identity of any length or bytes makes a
 * short key, and an erased author's id is in no Redis key.
 */
export function callerId(sub: string): string {
  return createHash('sha256').update(sub).digest('base64url').slice(0, 22);
}
