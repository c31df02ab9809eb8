/**
 * Query strings and paths whose percent-encoding is not UTF-8 (`%FF`, or `%ED%A0%80`, a surrogate
 * as CESU-8 writes it). Decoding them leniently would turn them into something else: U+FFFD, or the
 * raw text kept as it is (Fastify's default parser), so `x%ED%A0%80`, `x%EF%BF%BD` and
 * `x%25ED%25A0%2580` could all name one author. Such a value is read as UNREADABLE instead, and the
 * validation of the route it reaches refuses it by its name, after authentication (docs/contract.md §3).
 */

/**
 * What an undecodable value is read as. Its NUL makes it a value that no parameter accepts even if
 * a client sent it as such.
 */
export const UNREADABLE = '\u0000unreadable percent-encoding';

function decode(part: string): string | undefined {
  if (!part.includes('%') && !part.includes('+')) return part;
  try {
    return decodeURIComponent(part.replaceAll('+', ' '));
  } catch {
    return undefined;
  }
}

/**
 * The query string as Fastify's default parser reads it (`+` is a space, a repeated name gives an
 * array, a name without `=` has the value `''`), except that an undecodable value is UNREADABLE
 * and an undecodable name is kept as sent, so it is an unknown parameter, not a known one.
 */
export function parseQueryString(text: string): Record<string, string | string[]> {
  const query: Record<string, string | string[]> = Object.create(null) as Record<string, string | string[]>;
  for (const pair of text.split('&')) {
    if (pair === '') continue;
    const equals = pair.indexOf('=');
    const rawName = equals === -1 ? pair : pair.slice(0, equals);
    const name = decode(rawName) ?? rawName;
    const value = equals === -1 ? '' : (decode(pair.slice(equals + 1)) ?? UNREADABLE);
    const earlier = query[name];
    query[name] = earlier === undefined ? value : [...(Array.isArray(earlier) ? earlier : [earlier]), value];
  }
  return query;
}

/**
 * The URL with each path segment that does not decode replaced by UNREADABLE (encoded), so the
 * router finds the route and its parameter receives the marker; undefined when every segment decodes.
 */
export function readablePath(url: string): string | undefined {
  const queryAt = url.indexOf('?');
  const path = queryAt === -1 ? url : url.slice(0, queryAt);
  let changed = false;
  const segments = path.split('/').map((segment) => {
    if (decode(segment.replaceAll('+', '%2B')) !== undefined) return segment;
    changed = true;
    return encodeURIComponent(UNREADABLE);
  });
  return changed ? segments.join('/') + (queryAt === -1 ? '' : url.slice(queryAt)) : undefined;
}
