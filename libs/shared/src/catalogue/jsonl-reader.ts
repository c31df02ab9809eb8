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
      for await (const bytes of splitLines(input)) {
        line += 1;
        let text: string;
        try {
          text = utf8.decode(bytes);
        } catch {
          // Decoded leniently, the bad bytes would become U+FFFD and could make two ids one.
          yield { line, value: undefined, error: 'not UTF-8' };
          continue;
        }
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

/** Refuses bytes that are not UTF-8 rather than reading them as U+FFFD. */
const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

const NEWLINE = 0x0a;
const CR = 0x0d;

/**
 * The lines of a stream as bytes, split at `\n` only (a `\r` before it is dropped). JSON Lines ends a
 * record there and nowhere else: `node:readline` also breaks at U+2028 and U+2029 since Node 24,
 * which JSON allows raw inside strings (the sample has them), and would cut such records in two.
 * Each line is decoded on its own, so one that is not UTF-8 is refused alone.
 */
async function* splitLines(input: Readable): AsyncGenerator<Buffer> {
  const withoutCr = (line: Buffer) => (line.at(-1) === CR ? line.subarray(0, -1) : line);
  let rest: Buffer = Buffer.alloc(0);
  for await (const chunk of input as AsyncIterable<Buffer>) {
    let bytes: Buffer = rest.length > 0 ? Buffer.concat([rest, chunk]) : chunk;
    for (let end = bytes.indexOf(NEWLINE); end !== -1; end = bytes.indexOf(NEWLINE)) {
      yield withoutCr(bytes.subarray(0, end));
      bytes = bytes.subarray(end + 1);
    }
    rest = bytes;
  }
  if (rest.length > 0) yield withoutCr(rest);
}
