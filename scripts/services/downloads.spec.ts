import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { downloadChecked, mavenUrl } from './downloads.ts';

const BODY = randomBytes(256 * 1024);
const sha = (algorithm: string, data: Buffer) => createHash(algorithm).update(data).digest('hex');

interface Repository {
  url: string;
  /** Requests seen, as `METHOD path range`. */
  requests: string[];
  close(): Promise<void>;
}

/**
 * A repository on loopback serving `/file.zip` and whichever checksum files it is given; the first
 * `drops` answers to the file are cut off halfway, as a dropped connection would.
 */
async function repository(sidecars: Record<string, string>, drops = 0): Promise<Repository> {
  const requests: string[] = [];
  let dropsLeft = drops;
  const server: Server = createServer((request, response) => {
    const range = request.headers.range ?? '';
    requests.push(`${request.method} ${request.url} ${range}`.trim());
    if (request.url === '/file.zip') {
      const from = Number(/bytes=(\d+)-/.exec(range)?.[1] ?? 0);
      const part = BODY.subarray(from);
      response.writeHead(from > 0 ? 206 : 200, {
        'content-length': part.length,
        'accept-ranges': 'bytes',
        ...(from > 0 ? { 'content-range': `bytes ${from}-${BODY.length - 1}/${BODY.length}` } : {}),
      });
      if (dropsLeft > 0) {
        dropsLeft -= 1;
        // Time for the client to read the half it got before the connection goes.
        response.write(part.subarray(0, part.length / 2), () => setTimeout(() => response.destroy(), 100));
        return;
      }
      response.end(part);
      return;
    }
    const sidecar = sidecars[request.url!.replace('/file.zip', '')];
    if (sidecar === undefined) {
      response.writeHead(404).end();
      return;
    }
    response.end(sidecar);
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/file.zip`,
    requests,
    close: () => new Promise((done) => server.close(() => done())),
  };
}

describe('downloads from Maven Central', () => {
  // The tool's progress lines (`[services] …`) are for a person at a terminal, not for the test's output.
  beforeEach(() => jest.spyOn(process.stderr, 'write').mockImplementation(() => true));
  afterEach(() => jest.restoreAllMocks());
  let dir: string;
  let repo: Repository | undefined;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'services-download-'))));
  afterEach(async () => {
    await repo?.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const options = { retryDelayMs: 1, attempts: 3 };

  it('names a file as Maven Central lays it out', () => {
    expect(
      mavenUrl({
        group: 'org.elasticsearch.distribution.integ-test-zip',
        artifact: 'elasticsearch',
        version: '9.5.3',
        extension: 'zip',
      }),
    ).toBe(
      'https://repo1.maven.org/maven2/org/elasticsearch/distribution/integ-test-zip/elasticsearch/9.5.3/elasticsearch-9.5.3.zip',
    );
    expect(
      mavenUrl({
        group: 'org.gaul',
        artifact: 's3proxy',
        version: '4.1.0',
        classifier: 'jar-with-dependencies',
        extension: 'jar',
      }),
    ).toBe('https://repo1.maven.org/maven2/org/gaul/s3proxy/4.1.0/s3proxy-4.1.0-jar-with-dependencies.jar');
  });

  it('checks the file against the .sha512 and the .sha1 served beside it', async () => {
    repo = await repository({ '.sha512': `${sha('sha512', BODY)}  file.zip\n`, '.sha1': sha('sha1', BODY) });
    await downloadChecked(repo.url, join(dir, 'file.zip'), options);
    expect(readFileSync(join(dir, 'file.zip')).equals(BODY)).toBe(true);
  });

  it('resumes where a dropped connection stopped, and still checks the whole file', async () => {
    repo = await repository({ '.sha1': sha('sha1', BODY) }, 2);
    await downloadChecked(repo.url, join(dir, 'file.zip'), options);
    expect(readFileSync(join(dir, 'file.zip')).equals(BODY)).toBe(true);
    const fileRequests = repo.requests.filter((line) => /^GET \/file\.zip\b(?!\.)/.test(line));
    expect(fileRequests).toEqual([
      'GET /file.zip',
      expect.stringMatching(/^GET \/file\.zip bytes=[1-9]\d*-$/),
      expect.stringMatching(/^GET \/file\.zip bytes=[1-9]\d*-$/),
    ]);
  });

  it('gives up after its attempts, saying so', async () => {
    repo = await repository({ '.sha1': sha('sha1', BODY) }, 10);
    await expect(downloadChecked(repo.url, join(dir, 'file.zip'), options)).rejects.toThrow(
      /could not download .*file\.zip after 3 attempts/,
    );
    expect(existsSync(join(dir, 'file.zip'))).toBe(false);
  });

  it('refuses a file that does not match, keeping nothing', async () => {
    repo = await repository({ '.sha1': sha('sha1', Buffer.from('another file')) });
    await expect(downloadChecked(repo.url, join(dir, 'file.zip'), options)).rejects.toThrow(
      /file\.zip does not match .*file\.zip\.sha1: sha1 [0-9a-f]{40}, expected [0-9a-f]{40}/,
    );
    expect(existsSync(join(dir, 'file.zip'))).toBe(false);
    expect(existsSync(join(dir, 'file.zip.part'))).toBe(false);
  });

  it('checks a pinned SHA-1 where the repository serves no checksum, and refuses a file with none at all', async () => {
    repo = await repository({});
    await downloadChecked(repo.url, join(dir, 'file.zip'), { ...options, sha1: sha('sha1', BODY) });
    expect(existsSync(join(dir, 'file.zip'))).toBe(true);
    await expect(downloadChecked(repo.url, join(dir, 'other.zip'), options)).rejects.toThrow(
      /has no checksum to verify it by/,
    );
    await expect(
      downloadChecked(repo.url, join(dir, 'other.zip'), { ...options, sha1: sha('sha1', Buffer.from('x')) }),
    ).rejects.toThrow(/does not match the pinned SHA-1/);
  });
});
