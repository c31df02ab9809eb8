import { createHash } from 'node:crypto';
import {
  createReadStream,
  createWriteStream,
  existsSync,
  mkdirSync,
  renameSync,
  rmSync,
  statSync,
} from 'node:fs';
import { basename, dirname } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream } from 'node:stream/web';
import { fail, log } from './report.ts';
import { sleep } from './wait.ts';

export const MAVEN_CENTRAL = 'https://repo1.maven.org/maven2';

export interface Artifact {
  group: string;
  artifact: string;
  version: string;
  classifier?: string;
  extension: string;
}

/** `<repository>/<group as a path>/<artifact>/<version>/<artifact>-<version>[-<classifier>].<extension>` */
export function mavenUrl(coordinates: Artifact, repository = MAVEN_CENTRAL): string {
  const { group, artifact, version, classifier, extension } = coordinates;
  const file = `${artifact}-${version}${classifier ? `-${classifier}` : ''}.${extension}`;
  return `${repository}/${group.replaceAll('.', '/')}/${artifact}/${version}/${file}`;
}

export interface DownloadOptions {
  /** A SHA-1 the caller already knows (a pinned version's). */
  sha1?: string | undefined;
  attempts?: number;
  /** Milliseconds before the first retry; doubled at each. */
  retryDelayMs?: number;
}

type Digest = { algorithm: 'sha512' | 'sha1'; hex: string; from: string };

/** The checksum files Maven Central serves beside a file (the strongest first): `.sha512`, `.sha1`. */
async function publishedDigests(url: string, attempts: number, delayMs: number): Promise<Digest[]> {
  const digests: Digest[] = [];
  for (const algorithm of ['sha512', 'sha1'] as const) {
    const response = await retried(
      `${basename(url)}.${algorithm}`,
      async () => {
        const answer = await fetch(`${url}.${algorithm}`, { signal: AbortSignal.timeout(30_000) });
        if (answer.status === 404) return undefined;
        if (!answer.ok) throw new Error(`HTTP ${answer.status}`);
        return answer.text();
      },
      attempts,
      delayMs,
    );
    const hex = response?.trim().split(/\s+/)[0]?.toLowerCase();
    if (hex) digests.push({ algorithm, hex, from: `${url}.${algorithm}` });
  }
  return digests;
}

async function fileDigest(file: string, algorithm: Digest['algorithm']): Promise<string> {
  const hash = createHash(algorithm);
  await pipeline(createReadStream(file), hash);
  return hash.digest('hex');
}

/** An error as a person reads it: fetch's `terminated` says little without its cause's code. */
function reason(error: unknown): string {
  // Not `instanceof Error`: fetch's errors may come from another realm (jest's).
  const { message, cause } = (error ?? {}) as {
    message?: string;
    cause?: { code?: string; message?: string };
  };
  if (message === undefined) return String(error);
  return cause ? `${message} (${cause.code ?? cause.message})` : message;
}

async function retried<T>(
  what: string,
  work: () => Promise<T>,
  attempts: number,
  delayMs: number,
): Promise<T> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await work();
    } catch (error) {
      if (attempt >= attempts) throw error;
      log(`${what}: ${reason(error)}; retrying (${attempt}/${attempts - 1})`);
      await sleep(delayMs * 2 ** (attempt - 1));
    }
  }
}

/** Appends the rest of `url` to `partial` (from its current size, when the server takes ranges). */
async function fetchRest(url: string, partial: string): Promise<void> {
  const have = existsSync(partial) ? statSync(partial).size : 0;
  const response = await fetch(url, {
    headers: have > 0 ? { range: `bytes=${have}-` } : {},
    signal: AbortSignal.timeout(30 * 60_000),
  });
  if (response.status === 404) fail(`${url} does not exist (HTTP 404): is the version right?`);
  if (!response.ok || !response.body) throw new Error(`HTTP ${response.status}`);
  const resumed = response.status === 206;
  const total = resumed
    ? Number(/\/(\d+)$/.exec(response.headers.get('content-range') ?? '')?.[1])
    : Number(response.headers.get('content-length'));
  await pipeline(
    Readable.fromWeb(response.body as ReadableStream<Uint8Array>),
    createWriteStream(partial, { flags: resumed ? 'a' : 'w' }),
  );
  const size = statSync(partial).size;
  if (total && size !== total) throw new Error(`connection dropped at ${size} of ${total} bytes`);
}

/**
 * Downloads `url` to `dest` over HTTPS, retrying (and resuming) when the connection drops, and
 * checks it against every checksum there is: the one Maven Central serves beside it and the
 * caller's pinned one. A file with none to check against, or a mismatch, is refused; `dest` only
 * ever holds a checked file.
 */
export async function downloadChecked(
  url: string,
  dest: string,
  options: DownloadOptions = {},
): Promise<void> {
  const attempts = options.attempts ?? 5;
  const delayMs = options.retryDelayMs ?? 2_000;
  const digests = await publishedDigests(url, attempts, delayMs).catch((error: unknown) =>
    fail(`cannot read the checksum of ${url}: ${error instanceof Error ? error.message : String(error)}`),
  );
  if (options.sha1)
    digests.push({ algorithm: 'sha1', hex: options.sha1.toLowerCase(), from: 'the pinned SHA-1' });
  if (digests.length === 0) {
    fail(`${url} has no checksum to verify it by (no .sha512 or .sha1 beside it, and no pinned SHA-1)`);
  }
  mkdirSync(dirname(dest), { recursive: true });
  const partial = `${dest}.part`;
  log(`downloading ${url}`);
  try {
    await retried(basename(url), () => fetchRest(url, partial), attempts, delayMs);
  } catch (error) {
    if (error instanceof Error && error.name === 'ServicesError') throw error;
    fail(`could not download ${url} after ${attempts} attempts (is it reachable?): ${reason(error)}`);
  }
  for (const digest of digests) {
    const actual = await fileDigest(partial, digest.algorithm);
    if (actual !== digest.hex) {
      rmSync(partial, { force: true });
      fail(
        `${basename(dest)} does not match ${digest.from}: ${digest.algorithm} ${actual}, expected ${digest.hex}`,
      );
    }
  }
  renameSync(partial, dest);
}
