import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { openJsonLines, type JsonLine } from './jsonl-reader';

async function readAll(path: string): Promise<JsonLine[]> {
  const source = await openJsonLines(path);
  const lines: JsonLine[] = [];
  for await (const line of source.lines()) lines.push(line);
  return lines;
}

describe('openJsonLines', () => {
  let dir: string;
  beforeAll(() => (dir = mkdtempSync(join(tmpdir(), 'jsonl-'))));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  // A record longer than one read (256 KiB) whose multi-byte characters straddle the chunk edges.
  const long = { title: 'é€😀'.repeat(40_000) };
  const records = [
    { title: 'a line\u2028separator and a paragraph\u2029separator inside a string' },
    { title: 'after CRLF' },
    long,
    { title: 'last, without a newline' },
  ];
  const text =
    `${JSON.stringify(records[0])}\n${JSON.stringify(records[1])}\r\n\n` +
    `${JSON.stringify(records[2])}\n{not json}\n${JSON.stringify(records[3])}`;

  it.each([
    ['plain', 'videos.jsonl', Buffer.from(text)],
    ['gzip', 'videos.jsonl.gz', gzipSync(text)],
  ])('splits %s files at newlines only, keeping U+2028/U+2029 inside records', async (_kind, name, bytes) => {
    const path = join(dir, name);
    writeFileSync(path, bytes);
    const lines = await readAll(path);
    expect(lines.filter((l) => !l.error).map((l) => l.value)).toEqual(records);
    expect(lines.map((l) => l.line)).toEqual([1, 2, 4, 5, 6]);
    const broken = lines.filter((l) => l.error);
    expect(broken.map((l) => l.line)).toEqual([5]);
    expect(broken[0]?.error).toMatch(/^invalid JSON/);
  });

  it('refuses a line that is not UTF-8 alone, and never reads its bytes as U+FFFD', async () => {
    const path = join(dir, 'bytes.jsonl');
    const record = (bytes: number[]) =>
      Buffer.concat([Buffer.from('{"slug":"s","authorId":"x'), Buffer.from(bytes), Buffer.from('"}\n')]);
    writeFileSync(
      path,
      Buffer.concat([
        record([0xed, 0xa0, 0x80]), // a lone high surrogate, as CESU-8 writes it
        record([0xff]),
        record([0xef, 0xbf, 0xbd]), // U+FFFD itself
        record([0xc0, 0x80]), // an overlong NUL
      ]),
    );
    const lines = await readAll(path);
    expect(lines.map((l) => l.error ?? l.value)).toEqual([
      'not UTF-8',
      'not UTF-8',
      { slug: 's', authorId: 'x\uFFFD' },
      'not UTF-8',
    ]);
  });
});
