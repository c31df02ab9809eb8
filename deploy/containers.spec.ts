import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { parse } from 'yaml';

const ROOT = resolve(__dirname, '..');

interface ComposeService {
  image?: string;
  build?: unknown;
  ports?: string[];
  command?: string[];
  environment?: Record<string, string>;
}

const compose = parse(readFileSync(resolve(ROOT, 'docker-compose.yml'), 'utf8'), { merge: true }) as {
  services: Record<string, ComposeService>;
};
const services = Object.entries(compose.services);

describe('docker-compose.yml', () => {
  it('pins every image it pulls to a release, never a moving tag', () => {
    const pulled = services.filter(([, service]) => service.image !== undefined);
    expect(pulled.length).toBeGreaterThan(0);
    for (const [name, { image }] of pulled) {
      const tag = /:([^:/@]+)$/.exec(image!)?.[1] ?? '';
      // A full version (x.y.z) or a dated release; a digest pins as well.
      const pinned =
        /^\d+\.\d+\.\d+$/.test(tag) || /^RELEASE\.\d{4}-/.test(tag) || image!.includes('@sha256:');
      expect({ name, image, pinned }).toEqual({ name, image, pinned: true });
    }
  });

  it("publishes the API's public port, and every other port on the host's loopback only", () => {
    for (const [name, service] of services) {
      for (const port of service.ports ?? []) {
        const open = name === 'api' && port === '3000:3000';
        expect({ name, port, loopback: open || port.startsWith('127.0.0.1:') }).toEqual({
          name,
          port,
          loopback: true,
        });
      }
    }
  });

  describe("the import service's check for a sample already imported", () => {
    const importer = compose.services.import!;
    let count: number | 'missing';
    let server: Server;
    let url: string;

    beforeAll(async () => {
      // Elasticsearch's `_count` as the check reads it: a count, or 404 before `setup` made the index.
      server = createServer((request, response) => {
        if (count === 'missing' || request.url !== '/videos/_count') {
          response.writeHead(404).end('{}');
          return;
        }
        response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ count }));
      });
      await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
      url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    });

    afterAll(() => new Promise<void>((done) => server.close(() => done())));

    /** Whether the command would skip the import: the check's exit status. */
    const present = async () => {
      try {
        await promisify(execFile)(process.execPath, ['-e', importer.environment!.SAMPLE_PRESENT!], {
          env: { ELASTICSEARCH_URL: url, ELASTICSEARCH_INDEX: 'videos' },
        });
        return true;
      } catch {
        return false;
      }
    };

    it('imports into an index that is missing or empty, and not into one that holds videos', async () => {
      expect(importer.command!.join(' ')).toMatch(
        /if node -e "\$\$SAMPLE_PRESENT"; then .*; else .* import /,
      );
      count = 'missing';
      expect(await present()).toBe(false);
      count = 0;
      expect(await present()).toBe(false);
      count = 1204;
      expect(await present()).toBe(true);
    });
  });
});

describe('the Dockerfile', () => {
  const lines = readFileSync(resolve(ROOT, 'Dockerfile'), 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '' && !line.trimStart().startsWith('#'));
  const stages = lines.reduce<string[][]>((all, line) => {
    if (line.startsWith('FROM ')) all.push([line]);
    else all.at(-1)?.push(line);
    return all;
  }, []);

  it('installs with `npm ci` only, the runtime taking production dependencies from a stage of their own', () => {
    const installs = lines.filter((line) => /\bnpm (install|i|ci)\b/.test(line));
    expect(installs.length).toBeGreaterThanOrEqual(2);
    for (const line of installs) expect(line).toMatch(/\bnpm ci\b/);
    expect(installs.some((line) => line.includes('--omit=dev'))).toBe(true);
    const runtime = stages.at(-1)!;
    expect(runtime.filter((line) => line.startsWith('RUN '))).toEqual([]);
    expect(runtime).toContain('COPY --from=production-deps /app/node_modules node_modules');
  });

  it('runs as a non-root user named by its id, on a Node image pinned to a version', () => {
    const user = stages.at(-1)!.find((line) => line.startsWith('USER '));
    expect(user).toMatch(/^USER [1-9]\d*(:\d+)?$/);
    const image = /^ARG NODE_IMAGE=node:(\S+)$/.exec(
      lines.find((line) => line.startsWith('ARG NODE_IMAGE=')) ?? '',
    );
    expect(image?.[1]).toMatch(/^\d+\.\d+\.\d+-/);
    const pinnedNode = (
      JSON.parse(readFileSync(resolve(ROOT, 'package.json'), 'utf8')) as {
        devDependencies: Record<string, string>;
      }
    ).devDependencies.node;
    expect(image?.[1]).toBe(`${pinnedNode}-bookworm-slim`);
  });
});
