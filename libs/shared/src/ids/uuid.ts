import { createHash } from 'node:crypto';

const CANONICAL = /^[0-9a-f]{8}-[0-9a-f]{4}-[1-8][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i;
const NIL = '00000000-0000-0000-0000-000000000000';
const MAX = 'ffffffff-ffff-ffff-ffff-ffffffffffff';

/** The UUID rule of docs/contract.md §5: canonical form, versions 1–8, RFC 9562 variant, plus nil and max. */
export function isValidVideoId(value: string): boolean {
  if (CANONICAL.test(value)) return true;
  const lower = value.toLowerCase();
  return lower === NIL || lower === MAX;
}

/** Ids are stored lowercase so comparisons are case-insensitive. */
export function normalizeId(value: string): string {
  return value.toLowerCase();
}

/** Name-based UUID (RFC 9562 version 5): the same name always gives the same id. */
export function uuidV5(name: string, namespace: string): string {
  const hash = createHash('sha1')
    .update(Buffer.from(namespace.replace(/-/g, ''), 'hex'))
    .update(name, 'utf8')
    .digest();
  hash[6] = (hash[6]! & 0x0f) | 0x50;
  hash[8] = (hash[8]! & 0x3f) | 0x80;
  const hex = hash.subarray(0, 16).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** Namespaces for the import's derived ids (fixed forever: changing them changes every id). */
export const VIDEO_ID_NAMESPACE = 'a7c1e1f0-5b0e-4c55-9d3c-2f1f6f0b9d11';
export const AUTHOR_ID_NAMESPACE = '3e9f5c2a-8d4b-4f1e-a6b7-0c2d9e8f7a61';
