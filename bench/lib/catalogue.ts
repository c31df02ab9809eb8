/**
 * A realistic synthetic catalogue for the scale step: any number of videos whose text varies the
 * way a real catalogue's does, learnt from the sample (data/pyvideo.jsonl.gz) and drawn with a
 * seeded generator, so every run and every machine gets the same videos; copies of the sample
 * would make every query's hits come in identical groups. How each field is drawn:
 * docs/performance.md, "The realistic catalogue". Generation streams to a JSON Lines file in the
 * importer's format; memory holds the model and a fixed-size table of text hashes, whatever the count.
 */
import { once } from 'node:events';
import { createWriteStream, existsSync, mkdirSync, renameSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseRecordDate } from '@app/shared/catalogue/import-record';
import { openJsonLines } from '@app/shared/catalogue/jsonl-reader';
import { prng, searchCumulative, Weighted, WeightedIndex, zipf } from './random';

/** Bump when the output for a given count and seed changes: cached files are keyed by it. */
export const CATALOGUE_VERSION = 1;
export const CATALOGUE_SEED = 19;

/** Owner names in the pool per video, and the skew of videos per owner (fitted to the sample). */
const AUTHOR_POOL_PER_VIDEO = 2;
const AUTHOR_ZIPF_EXPONENT = 0.75;
const DATE_JITTER_DAYS = 182;
const DAY_MS = 86_400_000;
/**
 * Bound once: jest runs modules in a `node:vm` context, where every look-up of a global such as
 * `Math` goes through an interceptor; in the hash's per-character loop that made the spec 50×
 * slower.
 */
const { imul } = Math;
/** The importer's limit on a title. */
const MAX_TITLE = 512;

/** What the generator reads from a sample record. */
export interface SampleVideo {
  title: string;
  description?: string | null;
  tags?: string[] | null;
  speakers?: string[] | null;
  event?: string | null;
  recorded?: string | null;
}

/** One generated video: a line of the importer's format, without media (the scale run measures rows and the index). */
export interface CatalogueVideo {
  slug: string;
  title: string;
  description: string;
  tags: string[];
  speakers: string[];
  event: string;
  publishedAt: string | null;
  media: string[];
}

/** What one sample video lends a generated one: its shape, not its words. */
interface Shape {
  event: string;
  day: number | null;
  titleWords: number;
  descriptionWords: number;
  tags: number;
  speakers: number;
}

const words = (text: string | null | undefined) => (text ?? '').split(/\s+/).filter((w) => w.length > 0);

class Vocabulary {
  readonly words: string[] = [];
  private readonly ids = new Map<string, number>();

  id(word: string): number {
    let id = this.ids.get(word);
    if (id === undefined) {
      id = this.words.length;
      this.ids.set(word, id);
      this.words.push(word);
    }
    return id;
  }
}

/**
 * A word bigram chain: which words start a text, which end one, and which word follows which, each
 * with its count. Stored flat (the followers of word w at offsets[w]…offsets[w + 1], with running
 * totals of their counts), so a trained chain is a few typed arrays, not millions of objects.
 */
class WordChain {
  private constructor(
    private readonly vocabulary: Vocabulary,
    private readonly startIds: Uint32Array,
    private readonly starts: WeightedIndex,
    private readonly offsets: Uint32Array,
    private readonly followers: Uint32Array,
    /** Running totals of each pair's count. */
    private readonly cumulative: Float64Array,
    /** Running totals of each pair's count times how often its second word ends a text. */
    private readonly endingCumulative: Float64Array,
  ) {}

  static train(vocabulary: Vocabulary, texts: Uint32Array[]): WordChain {
    const size = vocabulary.words.length;
    const startCounts = new Map<number, number>();
    const ends = new Float64Array(size);
    // Each pair (a, b) as one number a·size + b: sorting them groups every word's followers.
    const pairs = new Float64Array(texts.reduce((n, text) => n + Math.max(0, text.length - 1), 0));
    let p = 0;
    for (const text of texts) {
      if (text.length === 0) continue;
      startCounts.set(text[0]!, (startCounts.get(text[0]!) ?? 0) + 1);
      ends[text[text.length - 1]!]! += 1;
      for (let i = 1; i < text.length; i++) pairs[p++] = text[i - 1]! * size + text[i]!;
    }
    pairs.sort();
    const offsets = new Uint32Array(size + 1);
    const followers: number[] = [];
    const cumulative: number[] = [];
    const endingCumulative: number[] = [];
    let total = 0;
    let endingTotal = 0;
    for (let i = 0; i < pairs.length;) {
      let j = i;
      while (j < pairs.length && pairs[j] === pairs[i]) j++;
      const from = Math.floor(pairs[i]! / size);
      const to = pairs[i]! - from * size;
      followers.push(to);
      cumulative.push((total += j - i));
      endingCumulative.push((endingTotal += (j - i) * ends[to]!));
      offsets[from + 1]! += 1;
      i = j;
    }
    for (let w = 0; w < size; w++) offsets[w + 1]! += offsets[w]!;
    return new WordChain(
      vocabulary,
      Uint32Array.from(startCounts.keys()),
      new WeightedIndex(Array.from(startCounts.values())),
      offsets,
      Uint32Array.from(followers),
      Float64Array.from(cumulative),
      Float64Array.from(endingCumulative),
    );
  }

  /**
   * `length` words: a start word, then each word's follower, the last one drawn among the
   * followers that end texts (so a title does not stop at "and the"); a word nothing follows
   * starts afresh.
   */
  text(length: number, random: () => number): string {
    if (length <= 0) return '';
    const out: string[] = [];
    let word = this.startIds[this.starts.draw(random)]!;
    for (;;) {
      out.push(this.vocabulary.words[word]!);
      if (out.length >= length) return out.join(' ');
      const last = out.length === length - 1;
      word =
        (last ? this.follower(word, this.endingCumulative, random) : undefined) ??
        this.follower(word, this.cumulative, random) ??
        this.startIds[this.starts.draw(random)]!;
    }
  }

  /** A follower of `word` drawn by the weights whose running totals are `cumulative`; none when all are 0. */
  private follower(word: number, cumulative: Float64Array, random: () => number): number | undefined {
    const from = this.offsets[word]!;
    const to = this.offsets[word + 1]!;
    const base = from > 0 ? cumulative[from - 1]! : 0;
    if (from === to || cumulative[to - 1]! === base) return undefined;
    const target = base + random() * (cumulative[to - 1]! - base);
    return this.followers[searchCumulative(cumulative, from, to, target)]!;
  }
}

/**
 * Hashes of every title and description written so far, in a table sized once for the whole run
 * (open addressing, two 32-bit hashes per slot). A text seen before is always found; a false match
 * of both hashes only costs one more draw.
 */
class SeenTexts {
  private readonly table: Uint32Array;
  private readonly mask: number;

  constructor(count: number) {
    let slots = 1024;
    while (slots < count * 2) slots *= 2;
    this.table = new Uint32Array(slots * 2);
    this.mask = slots - 1;
  }

  /** False when the text was added before. */
  add(text: string): boolean {
    let h1 = 0x811c9dc5;
    let h2 = 0x9747b28c;
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      h1 = imul(h1 ^ c, 0x01000193);
      h2 = imul(h2 ^ c, 0x5bd1e995);
      h2 ^= h2 >>> 15;
    }
    h1 >>>= 0;
    // (0, 0) marks an empty slot.
    h2 = h2 >>> 0 || 1;
    for (let slot = h1 & this.mask; ; slot = (slot + 1) & this.mask) {
      const at = slot * 2;
      if (this.table[at + 1] === 0) {
        this.table[at] = h1;
        this.table[at + 1] = h2;
        return true;
      }
      if (this.table[at] === h1 && this.table[at + 1] === h2) return false;
    }
  }
}

const slugify = (text: string) =>
  text
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');

/** What the generator learns from the sample; `videos()` draws a catalogue of any size from it. */
export class CatalogueModel {
  private constructor(
    private readonly shapes: Shape[],
    private readonly titles: WordChain,
    private readonly descriptions: WordChain,
    private readonly tags: Weighted<string>,
    private readonly speakers: Weighted<string>,
    private readonly firstNames: string[],
    private readonly lastNames: string[],
    private readonly days: { min: number; max: number },
  ) {}

  /** Learns from sample videos as they come: only the counts and the word ids stay in memory. */
  static async train(sample: Iterable<SampleVideo> | AsyncIterable<SampleVideo>): Promise<CatalogueModel> {
    const vocabulary = new Vocabulary();
    const titleTexts: Uint32Array[] = [];
    const descriptionTexts: Uint32Array[] = [];
    const tagCounts = new Map<string, number>();
    const speakerCounts = new Map<string, number>();
    const shapes: Shape[] = [];
    const days = { min: Infinity, max: -Infinity };
    const count = (counts: Map<string, number>, key: string) => counts.set(key, (counts.get(key) ?? 0) + 1);
    for await (const video of sample) {
      const title = words(video.title).map((w) => vocabulary.id(w));
      if (title.length === 0) continue;
      const description = words(video.description).map((w) => vocabulary.id(w));
      titleTexts.push(Uint32Array.from(title));
      descriptionTexts.push(Uint32Array.from(description));
      const tags = [...new Set((video.tags ?? []).map((t) => t.trim()).filter((t) => t.length > 0))];
      const speakers = (video.speakers ?? []).map((s) => s.trim()).filter((s) => s.length > 0);
      for (const tag of tags) count(tagCounts, tag);
      for (const speaker of speakers) count(speakerCounts, speaker);
      const date = parseRecordDate(video.recorded);
      const day = date ? Math.floor(date.getTime() / DAY_MS) : null;
      if (day !== null) {
        days.min = Math.min(days.min, day);
        days.max = Math.max(days.max, day);
      }
      shapes.push({
        event: video.event ?? '',
        day,
        titleWords: title.length,
        descriptionWords: description.length,
        tags: tags.length,
        speakers: speakers.length,
      });
    }
    if (shapes.length === 0 || tagCounts.size === 0 || speakerCounts.size === 0)
      throw new Error('the sample needs videos with titles, tags and speakers');
    const speakers = new Weighted(speakerCounts);
    // Name parts for owners beyond the sample's speakers, most frequent first.
    const firstCounts = new Map<string, number>();
    const lastCounts = new Map<string, number>();
    for (const name of speakers.ranked()) {
      const parts = name.split(/\s+/);
      if (parts.length < 2) continue;
      count(firstCounts, parts[0]!);
      count(lastCounts, parts[parts.length - 1]!);
    }
    return new CatalogueModel(
      shapes,
      WordChain.train(vocabulary, titleTexts),
      WordChain.train(vocabulary, descriptionTexts),
      new Weighted(tagCounts),
      speakers,
      new Weighted(firstCounts).ranked().slice(),
      new Weighted(lastCounts).ranked().slice(),
      days,
    );
  }

  /** Trains on a JSON Lines sample, streamed. */
  static async load(samplePath: string): Promise<CatalogueModel> {
    const source = await openJsonLines(samplePath);
    return CatalogueModel.train(
      (async function* () {
        for await (const { value, error } of source.lines()) {
          if (error) throw new Error(`${samplePath}: ${error}`);
          yield value as SampleVideo;
        }
      })(),
    );
  }

  /**
   * The pool's `rank`-th owner name: the sample's speakers by frequency, then first and last
   * names recombined, each pair once (for a fixed first name, the last names run through every
   * one before any repeats), so no two ranks share a name unless the sample already had it.
   */
  private ownerName(rank: number): string {
    const ranked = this.speakers.ranked();
    if (rank < ranked.length) return ranked[rank]!;
    const k = rank - ranked.length;
    const first = k % this.firstNames.length;
    const round = Math.floor(k / this.firstNames.length);
    if (round >= this.lastNames.length) throw new Error(`no name left for owner ${rank}`);
    // The offset spreads the last names over the first ones instead of giving all of one round the same.
    const last = (round + first * 7919) % this.lastNames.length;
    return `${this.firstNames[first]!} ${this.lastNames[last]!}`;
  }

  /** `count` videos, the same ones for the same seed (and a different catalogue for another). */
  *videos(count: number, seed = CATALOGUE_SEED): Generator<CatalogueVideo> {
    const random = prng(seed);
    const owners = zipf(Math.max(1, AUTHOR_POOL_PER_VIDEO * count), AUTHOR_ZIPF_EXPONENT);
    const seen = new SeenTexts(count);
    for (let n = 0; n < count; n++) {
      let shape: Shape;
      let title: string;
      let description: string;
      let tries = 0;
      // Another shape on each try: a one-word title without a description has few forms.
      do {
        if (++tries > 1_000) throw new Error(`no unused title and description for video ${n}`);
        shape = this.shapes[Math.floor(random() * this.shapes.length)]!;
        title = this.titles.text(shape.titleWords, random).slice(0, MAX_TITLE).trim();
        description = this.descriptions.text(shape.descriptionWords, random);
      } while (!seen.add(`${title}\n${description}`));
      const speakers =
        shape.speakers === 0
          ? []
          : [this.ownerName(owners.draw(random)), ...this.speakers.drawDistinct(shape.speakers - 1, random)];
      yield {
        // The number after `~` makes the slug (hence the id) unique; no sample slug has a `~`.
        slug: `${slugify(shape.event) || 'videos'}/${slugify(title).slice(0, 60)}~${n.toString(36)}`,
        title,
        description,
        tags: this.tags.drawDistinct(shape.tags, random),
        speakers: [...new Set(speakers)],
        event: shape.event,
        publishedAt: this.publishedAt(shape.day, random),
        media: [],
      };
    }
  }

  private publishedAt(day: number | null, random: () => number): string | null {
    if (day === null) return null;
    const jitter = Math.floor(random() * (2 * DATE_JITTER_DAYS + 1)) - DATE_JITTER_DAYS;
    const moved = Math.min(this.days.max, Math.max(this.days.min, day + jitter));
    return new Date(moved * DAY_MS + Math.floor(random() * DAY_MS)).toISOString();
  }
}

/**
 * The catalogue of `count` videos as a JSON Lines file in `cacheDir`, generated on first use and
 * reused after: its name carries the count, the seed and the generator's version. Written under a
 * temporary name and renamed, so an interrupted run never leaves a short file behind.
 */
export async function catalogueFile(
  count: number,
  { sample, cacheDir, seed = CATALOGUE_SEED }: { sample: string; cacheDir: string; seed?: number },
): Promise<{ path: string; generatedSeconds?: number }> {
  const path = resolve(cacheDir, `catalogue-v${CATALOGUE_VERSION}-seed${seed}-${count}.jsonl`);
  if (existsSync(path)) return { path };
  const started = performance.now();
  mkdirSync(cacheDir, { recursive: true });
  const model = await CatalogueModel.load(sample);
  const out = createWriteStream(`${path}.partial`);
  let chunk = '';
  for (const video of model.videos(count, seed)) {
    chunk += `${JSON.stringify(video)}\n`;
    // About a megabyte per write; waits when the disk falls behind, so memory stays flat.
    if (chunk.length >= 1 << 20) {
      if (!out.write(chunk)) await once(out, 'drain');
      chunk = '';
    }
  }
  out.end(chunk);
  await once(out, 'finish');
  renameSync(`${path}.partial`, path);
  return { path, generatedSeconds: (performance.now() - started) / 1000 };
}
