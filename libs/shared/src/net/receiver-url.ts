import { createHash } from 'node:crypto';

/**
 * A receiver's URL as it may be shown and stored: without `user:password@`, with every query
 * value (and a bare query word, which may be a token itself) replaced by `***`, without the
 * fragment (never sent). A URL with none of these is returned exactly as written.
 */
export function shownUrl(url: string): string {
  const parsed = new URL(url);
  if (!parsed.username && !parsed.password && !parsed.search && !parsed.hash) return url;
  const query = parsed.search
    .slice(1)
    .split('&')
    .map((part) => (part.includes('=') ? `${part.slice(0, part.indexOf('='))}=***` : '***'));
  return `${parsed.protocol}//${parsed.host}${parsed.pathname}${parsed.search ? `?${query.join('&')}` : ''}`;
}

/**
 * The name deliveries give a receiver (`webhook_deliveries.endpoint_key`): the SHA-256 of its URL
 * without `user:password@`. A password, which may be guessable, never enters it, and changing one
 * keeps the receiver's pending deliveries; a URL without credentials keeps the key it always had.
 * Query values do enter it, so receivers that differ only there stay apart.
 */
export function receiverKey(url: string): string {
  const parsed = new URL(url);
  let keyed = url;
  if (parsed.username || parsed.password) {
    parsed.username = '';
    parsed.password = '';
    keyed = parsed.href;
  }
  return createHash('sha256').update(keyed).digest('hex');
}

/** A receiver as its deliveries name it: its URL as it may be shown (`shownUrl`), and a key that holds no credential. */
export interface Endpoint {
  url: string;
  key: string;
}

export function endpointOf(url: string): Endpoint {
  return { url: shownUrl(url), key: receiverKey(url) };
}
