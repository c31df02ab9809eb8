import type { DataSource } from 'typeorm';

/** A small deterministic PRNG, so every run sends the same query mix. */
export function seeded(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return state / 2 ** 31;
  };
}

/** A query mix drawn from the data: one to three words of real titles. */
export async function queryMix(dataSource: DataSource, count = 500): Promise<string[]> {
  const rows: { title: string }[] = await dataSource.query(
    "SELECT title FROM videos WHERE state = 'active' ORDER BY id LIMIT 5000",
  );
  const next = seeded(7);
  const queries: string[] = [];
  while (queries.length < count && rows.length > 0) {
    const words = rows[Math.floor(next() * rows.length)]!.title.split(/\s+/).filter((w) =>
      /^[\p{L}\p{N}]{3,}$/u.test(w),
    );
    if (words.length === 0) continue;
    const length = 1 + Math.floor(next() * Math.min(3, words.length));
    const start = Math.floor(next() * (words.length - length + 1));
    queries.push(words.slice(start, start + length).join(' '));
  }
  return queries;
}
