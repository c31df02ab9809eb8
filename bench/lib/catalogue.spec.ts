import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { importRecordSchema, toImportedVideo } from '@app/shared/catalogue/import-record';
import { openJsonLines } from '@app/shared/catalogue/jsonl-reader';
import { CatalogueModel, catalogueFile, type CatalogueVideo, type SampleVideo } from './catalogue';

const SAMPLE = resolve(__dirname, '../../data/pyvideo.jsonl.gz');

/** The videos' languages are not what these cases are about. */
const undetermined = () => 'und';

const words = (text: string | null | undefined) => (text ?? '').split(/\s+/).filter((w) => w.length > 0);
const mean = (values: number[]) => values.reduce((sum, v) => sum + v, 0) / values.length;
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const share = <T>(items: T[], test: (item: T) => boolean) => items.filter(test).length / items.length;

/** How often each key occurs, most frequent first. */
function ranking(keys: Iterable<string>): string[] {
  const counts = new Map<string, number>();
  for (const key of keys) counts.set(key, (counts.get(key) ?? 0) + 1);
  return [...counts].sort((a, b) => b[1] - a[1]).map(([key]) => key);
}

/** How many of the first `n` of one ranking are among the first `n` of the other. */
const topOverlap = (a: string[], b: string[], n: number) =>
  a.slice(0, n).filter((key) => b.slice(0, n).includes(key)).length;

/** Videos per owner (the importer's `authorId`), most first. */
function videosPerOwner(videos: (SampleVideo | CatalogueVideo)[]): number[] {
  const counts = new Map<string, number>();
  for (const video of videos) {
    const { authorId } = toImportedVideo({ slug: 'x', ...video }, undetermined).content;
    counts.set(authorId, (counts.get(authorId) ?? 0) + 1);
  }
  return [...counts.values()].sort((a, b) => b - a);
}

const year = (date: string | null | undefined) => (date ? date.slice(0, 4) : 'none');

describe('CatalogueModel', () => {
  let sample: (SampleVideo & { slug: string })[];
  let model: CatalogueModel;
  /** As many videos as the sample has, so that counts compare directly. */
  let videos: CatalogueVideo[];

  beforeAll(async () => {
    sample = [];
    for await (const { value } of (await openJsonLines(SAMPLE)).lines())
      sample.push(value as SampleVideo & { slug: string });
    model = await CatalogueModel.train(sample);
    videos = [...model.videos(sample.length)];
  }, 60_000);

  it('draws the same videos for the same seed, from a model trained again, and others for another seed', async () => {
    const again = await CatalogueModel.train(sample);
    expect([...again.videos(200, 7)]).toEqual([...model.videos(200, 7)]);
    const other = [...model.videos(200, 8)];
    const first = [...model.videos(200, 7)];
    expect(other.filter((video, i) => video.title === first[i]!.title).length).toBeLessThan(10);
  });

  it('writes every video once: slugs, ids, and title with description are all unique, none a sample id', () => {
    const ids = videos.map(
      (video) => toImportedVideo(importRecordSchema.parse(video), undetermined).content.id,
    );
    const sampleIds = new Set(
      sample.map((video) => toImportedVideo(importRecordSchema.parse(video), undetermined).content.id),
    );
    expect(new Set(videos.map((video) => video.slug)).size).toBe(videos.length);
    expect(new Set(ids).size).toBe(videos.length);
    expect(ids.filter((id) => sampleIds.has(id))).toEqual([]);
    expect(new Set(videos.map((video) => `${video.title}\n${video.description}`)).size).toBe(videos.length);
  });

  it('writes records the importer accepts, without media', () => {
    for (const video of videos.slice(0, 2_000)) {
      expect(importRecordSchema.safeParse(video).success).toBe(true);
      expect(toImportedVideo(importRecordSchema.parse(video), undetermined).media).toEqual([]);
    }
  });

  it('follows the sample’s lengths: title words, empty descriptions, description words', () => {
    const titleWords = (list: { title: string }[]) => list.map((video) => words(video.title).length);
    const descriptionWords = (list: { description?: string | null }[]) =>
      list.map((video) => words(video.description).length);
    expect(mean(titleWords(videos)) / mean(titleWords(sample))).toBeCloseTo(1, 1);
    expect(
      share(videos, (v) => v.description === '') - share(sample, (v) => words(v.description).length === 0),
    ).toBeLessThan(0.02);
    expect(median(descriptionWords(videos)) / median(descriptionWords(sample))).toBeCloseTo(1, 1);
  });

  it('follows the sample’s word frequencies in titles and in descriptions', () => {
    const lower = (text: string | null | undefined) => words(text).map((w) => w.toLowerCase());
    const titleWords = (list: { title: string }[]) => ranking(list.flatMap((video) => lower(video.title)));
    const descriptionWords = (list: { description?: string | null }[]) =>
      ranking(list.flatMap((video) => lower(video.description)));
    expect(topOverlap(titleWords(videos), titleWords(sample), 50)).toBeGreaterThanOrEqual(40);
    expect(topOverlap(descriptionWords(videos), descriptionWords(sample), 100)).toBeGreaterThanOrEqual(90);
    // Recombined, not copied: most titles are new.
    const sampleTitles = new Set(sample.map((video) => video.title));
    expect(share(videos, (video) => !sampleTitles.has(video.title))).toBeGreaterThan(0.8);
  });

  it('draws tags, events and dates as the sample has them', () => {
    const tags = (list: { tags?: string[] | null }[]) => ranking(list.flatMap((video) => video.tags ?? []));
    expect(
      share(videos, (v) => v.tags.length > 0) - share(sample, (v) => (v.tags ?? []).length > 0),
    ).toBeLessThan(0.02);
    expect(topOverlap(tags(videos), tags(sample), 10)).toBeGreaterThanOrEqual(7);
    const events = new Set(sample.map((video) => video.event));
    expect(videos.every((video) => events.has(video.event))).toBe(true);
    expect(new Set(videos.map((video) => video.event)).size).toBeGreaterThan(0.9 * events.size);
    // Spread over the sample's years, in about its proportions (moved by up to half a year).
    const years = ranking(sample.map((video) => year(video.recorded)));
    for (const y of years.filter((y) => y >= '2011' && y <= '2024')) {
      const generated = share(videos, (video) => year(video.publishedAt) === y);
      const expected = share(sample, (video) => year(video.recorded) === y);
      expect(Math.abs(generated - expected)).toBeLessThan(0.02);
    }
    expect(new Set(videos.map((video) => video.publishedAt)).size).toBeGreaterThan(0.99 * videos.length);
  });

  it('spreads the videos over owners as the sample does: about as many, mostly with one video, a few with many', () => {
    const generated = videosPerOwner(videos);
    const actual = videosPerOwner(sample);
    expect(generated.length / actual.length).toBeGreaterThan(0.8);
    expect(generated.length / actual.length).toBeLessThan(1.25);
    expect(share(generated, (n) => n === 1)).toBeGreaterThan(0.65);
    expect(share(generated, (n) => n === 1)).toBeLessThan(0.8);
    // Zipf-like: the busiest owner has hundreds, the hundredth still over ten.
    expect(generated[0]).toBeGreaterThan(150);
    expect(generated[99]).toBeGreaterThan(10);
  });

  it('scales the owners with the catalogue: a larger one has proportionally as many', () => {
    const larger = videosPerOwner([...model.videos(2 * sample.length, 3)]);
    expect(larger.length / videosPerOwner(videos).length).toBeGreaterThan(1.8);
    expect(share(larger, (n) => n === 1)).toBeGreaterThan(0.6);
  });
});

describe('catalogueFile', () => {
  let dir: string;
  beforeAll(() => (dir = mkdtempSync(join(tmpdir(), 'catalogue-'))));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('writes the catalogue as JSON Lines once, then reuses the file', async () => {
    const first = await catalogueFile(500, { sample: SAMPLE, cacheDir: dir, seed: 5 });
    expect(first.generatedSeconds).toBeDefined();
    const lines = readFileSync(first.path, 'utf8').trimEnd().split('\n');
    const model = await CatalogueModel.load(SAMPLE);
    expect(lines.map((line) => JSON.parse(line) as CatalogueVideo)).toEqual([...model.videos(500, 5)]);
    const second = await catalogueFile(500, { sample: SAMPLE, cacheDir: dir, seed: 5 });
    expect(second).toEqual({ path: first.path });
  }, 30_000);
});
