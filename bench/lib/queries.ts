import type { DataSource } from 'typeorm';
import { openJsonLines } from '@app/shared/catalogue/jsonl-reader';
import { seeded } from './random';

export const KINDS = ['exact title', 'partial title', 'title with a typo', 'description words'] as const;
export type Kind = (typeof KINDS)[number];

/** A query a user who knows one video would type, and that video's id. */
export interface KnownItem {
  kind: Kind;
  q: string;
  target: string;
}

export interface KnownVideo {
  id: string;
  title: string;
  description: string;
}

const WORD = /[\p{L}\p{N}]+/gu;

function words(text: string): string[] {
  return (text.toLowerCase().match(WORD) ?? []).filter((w) => w.length > 1);
}

function withTypo(title: string, next: () => number): string | null {
  const parts = title.split(' ');
  const candidates = parts.map((w, i) => [w, i] as const).filter(([w]) => /^[a-z]{5,}$/i.test(w));
  if (candidates.length === 0) return null;
  const [word, index] = candidates[Math.floor(next() * candidates.length)]!;
  const at = 1 + Math.floor(next() * (word.length - 2));
  parts[index] = word.slice(0, at) + word[at + 1] + word[at] + word.slice(at + 2);
  return parts.join(' ');
}

/**
 * Known-item queries built deterministically (fixed seed) from `videos`, `perKind` of each kind in
 * turn: an exact title, a run of half a title's words, a title with two adjacent letters swapped,
 * the three rarest words (in at least two descriptions) of a description of 20+ words. Only videos
 * whose title is unique and has three words or more are known items: a title shared by several
 * videos has no single right answer (docs/relevance.md).
 */
export function knownItemQueries(videos: KnownVideo[], perKind: number, seed = 42): KnownItem[] {
  const next = seeded(seed);
  const documentFrequency = new Map<string, number>();
  for (const video of videos)
    for (const w of new Set(words(video.description)))
      documentFrequency.set(w, (documentFrequency.get(w) ?? 0) + 1);
  const titleCounts = new Map<string, number>();
  for (const video of videos)
    titleCounts.set(video.title.toLowerCase(), (titleCounts.get(video.title.toLowerCase()) ?? 0) + 1);
  const pool = videos.filter(
    (v) => titleCounts.get(v.title.toLowerCase()) === 1 && words(v.title).length >= 3,
  );
  const described = pool.filter((v) => words(v.description).length >= 20);
  const pick = () => pool[Math.floor(next() * pool.length)]!;
  const queries: KnownItem[] = [];
  for (let i = 0; i < perKind; i += 1) {
    const exact = pick();
    queries.push({ kind: 'exact title', q: exact.title, target: exact.id });
    const partial = pick();
    const titleWords = partial.title.split(/\s+/);
    const length = Math.max(2, Math.ceil(titleWords.length / 2));
    const start = Math.floor(next() * (titleWords.length - length + 1));
    queries.push({
      kind: 'partial title',
      q: titleWords.slice(start, start + length).join(' '),
      target: partial.id,
    });
    let typo: string | null = null;
    let typoVideo = pick();
    for (let tries = 0; typo === null && tries < 20; tries += 1) {
      typoVideo = pick();
      typo = withTypo(typoVideo.title, next);
    }
    if (typo) queries.push({ kind: 'title with a typo', q: typo, target: typoVideo.id });
    const video = described[Math.floor(next() * described.length)]!;
    const distinctive = [...new Set(words(video.description))]
      .filter((w) => w.length >= 4 && (documentFrequency.get(w) ?? 0) >= 2)
      .sort((a, b) => documentFrequency.get(a)! - documentFrequency.get(b)! || a.localeCompare(b))
      .slice(0, 3);
    if (distinctive.length > 0)
      queries.push({ kind: 'description words', q: distinctive.join(' '), target: video.id });
  }
  return queries;
}

/** The API's limit on `q` (docs/contract.md §7): a longer query is a 400, not a search. */
const MAX_QUERY = 256;

/**
 * The search bench's query mix, the same for every system it compares: known-item queries (all
 * four kinds, interleaved) from 5,000 active videos taken in id order, which ids being name-based
 * UUIDs is a fixed but scattered choice over the whole catalogue.
 */
export async function queryMix(dataSource: DataSource, perKind = 125): Promise<string[]> {
  const rows: KnownVideo[] = await dataSource.query(
    "SELECT id, title, description FROM videos WHERE state = 'active' ORDER BY id LIMIT 5000",
  );
  return knownItemQueries(rows, perKind)
    .map((item) => item.q.trim())
    .filter((q) => q.length > 0 && q.length <= MAX_QUERY);
}

/**
 * Exactly `perKind` queries of each of the four kinds, interleaved as `knownItemQueries` gives
 * them, within the API's limit on `q`. That builder skips a typo or a description it cannot make,
 * so it is asked for twice as many (its first queries are the same however many it is asked for) and cut: the mix keeps its proportions whatever the videos.
 */
export function knownItemMix(videos: KnownVideo[], perKind: number, seed = 42): string[] {
  const usable = (item: KnownItem) => item.q.trim().length > 0 && item.q.trim().length <= MAX_QUERY;
  const byKind = new Map<Kind, string[]>(KINDS.map((kind) => [kind, []]));
  for (const item of knownItemQueries(videos, perKind * 2, seed).filter(usable)) {
    const queries = byKind.get(item.kind)!;
    if (queries.length < perKind) queries.push(item.q.trim());
  }
  const kinds = [...byKind.values()];
  if (kinds.some((queries) => queries.length < perKind))
    throw new Error(`too few known items in ${videos.length} videos for ${perKind} queries of each kind`);
  return Array.from({ length: perKind }, (_, i) => kinds.map((queries) => queries[i]!)).flat();
}

/**
 * The search comparison's query mix: 400 known-item queries (100 of each kind) built from the
 * sample (data/pyvideo.jsonl.gz), as people type them: whole titles, parts of titles, titles with a
 * typo, words of a description. From the sample, not from what the index holds, so that every
 * catalogue size and every run is asked the same questions, about videos a person could know.
 */
export async function sampleQueryMix(samplePath: string, perKind = 100): Promise<string[]> {
  const source = await openJsonLines(samplePath);
  const videos: KnownVideo[] = [];
  for await (const { value, error } of source.lines()) {
    if (error) throw new Error(`${samplePath}: ${error}`);
    const { slug, title, description } = value as {
      slug: string;
      title: string;
      description?: string | null;
    };
    videos.push({ id: slug, title, description: description ?? '' });
  }
  return knownItemMix(videos, perKind);
}

/** The suggest route's limit on `q` (docs/contract.md §7.2). */
const MAX_TYPED = 64;

/**
 * What a search box holds while `q` is typed: its words up to the middle one, that one cut after
 * its first three letters (`pandas dataframe tricks` → `pandas dat`), within the route's 64
 * characters.
 */
export function asTyped(q: string): string {
  const words = q.slice(0, MAX_TYPED).split(/\s+/).filter(Boolean);
  const last = Math.floor(words.length / 2);
  return [...words.slice(0, last), words[last]!.slice(0, 3)].join(' ');
}
