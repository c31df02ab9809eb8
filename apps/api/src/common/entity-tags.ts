/**
 * Entity tags in conditional requests (RFC 9110 §8.8.3, §13.1): the list an `If-Match` or
 * `If-None-Match` header holds, and whether it names a representation's tag.
 */

/** A header's list: `*`, the tags it names, or undefined when it is not a list of entity tags. */
export type TagList = '*' | { weak: boolean; tag: string }[];

const ENTITY_TAG = /^\s*(W\/)?"([\x21\x23-\x7e\x80-\xff]*)"\s*(?:,|$)/;

export function parseTagList(header: string): TagList | undefined {
  if (header.trim() === '*') return '*';
  const tags: { weak: boolean; tag: string }[] = [];
  let rest = header;
  while (rest.trim() !== '') {
    const match = ENTITY_TAG.exec(rest);
    if (!match) return undefined;
    tags.push({ weak: match[1] !== undefined, tag: match[2]! });
    rest = rest.slice(match[0].length);
  }
  return tags.length > 0 ? tags : undefined;
}

/** `"<opaque>"`: a strong tag as the `ETag` header carries it. */
export const strongTag = (opaque: string) => `"${opaque}"`;

/**
 * `If-Match`: the strong comparison (a weak tag never matches); `*` matches any current
 * representation.
 */
export function matchesStrongly(list: TagList, opaque: string): boolean {
  return list === '*' || list.some(({ weak, tag }) => !weak && tag === opaque);
}

/** `If-None-Match`: the weak comparison (a tag matches whether either is weak). */
export function matchesWeakly(list: TagList, opaque: string): boolean {
  return list === '*' || list.some(({ tag }) => tag === opaque);
}
