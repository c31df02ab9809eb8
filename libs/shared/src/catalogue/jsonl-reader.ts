import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';

export interface JsonLine {
  line: number;
  value: unknown;
  error?: string;
}

export interface JsonLinesSource {
  /** Size of the file on disk, for progress. */
  totalBytes: number;
  /** Bytes of the file read so far (compressed bytes for .gz). */
  bytesRead(): number;
  lines(): AsyncGenerator<JsonLine>;
}

/** Streams a `.jsonl` or `.jsonl.gz` file line by line: memory stays flat at any file size. */
export async function openJsonLines(path: string): Promise<JsonLinesSource> {
  const { size } = await stat(path);
  const file = createReadStream(path, { highWaterMark: 256 * 1024 });
  const input: Readable = path.endsWith('.gz') ? file.pipe(createGunzip()) : file;
  file.on('error', (error) => input.destroy(error));
  return {
    totalBytes: size,
    bytesRead: () => file.bytesRead,
    async *lines() {
      let line = 0;
      for await (const text of splitLines(input)) {
        line += 1;
        if (text.trim() === '') continue;
        try {
          yield { line, value: JSON.parse(text) as unknown };
        } catch (error) {
          yield { line, value: undefined, error: `invalid JSON: ${(error as Error).message}` };
        }
      }
    },
  };
}

/**
 * The lines of a UTF-8 stream, split at `\n` only (a `\r` before it is dropped). JSON Lines ends a
 * record there and nowhere else: `node:readline` also breaks at U+2028 and U+2029 since Node 24,
 * which JSON allows raw inside strings (the sample has them), and would cut such records in two.
 */
async function* splitLines(input: Readable): AsyncGenerator<string> {
  const withoutCr = (line: string) => (line.endsWith('\r') ? line.slice(0, -1) : line);
  input.setEncoding('utf8');
  let rest = '';
  for await (const chunk of input as AsyncIterable<string>) {
    const parts = (rest + chunk).split('\n');
    rest = parts.pop() ?? '';
    yield* parts.map(withoutCr);
  }
  if (rest !== '') yield withoutCr(rest);
}
