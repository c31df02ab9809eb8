import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { servicesConfig } from './config.ts';
import { withLock } from './lock.ts';
import { redisAnswers } from './redis.ts';
import { statusLine, upLine } from './report.ts';
import { selectServices } from './services.ts';
import { sleep } from './wait.ts';

describe('choosing services', () => {
  it('defaults to all but the second Elasticsearch node', () => {
    expect(selectServices([], 1, false)).toEqual({
      services: ['mysql', 'redis', 'elasticsearch', 's3proxy'],
      cluster: false,
    });
  });

  it('adds elasticsearch-2 with ES_NODES=2, or while one started here runs, and names what it forms', () => {
    expect(selectServices([], 2, false)).toEqual({
      services: ['mysql', 'redis', 'elasticsearch', 'elasticsearch-2', 's3proxy'],
      cluster: true,
    });
    expect(selectServices([], 1, true).services).toContain('elasticsearch-2');
    expect(selectServices(['elasticsearch-2'], 1, false)).toEqual({
      services: ['elasticsearch-2'],
      cluster: true,
    });
    expect(selectServices(['s3proxy'], 1, false)).toEqual({ services: ['s3proxy'], cluster: false });
  });

  it('refuses a service it does not know, listing those it does', () => {
    expect(() => selectServices(['postgres'], 1, false)).toThrow(
      "unknown service 'postgres' (expected: mysql redis elasticsearch elasticsearch-2 s3proxy)",
    );
  });
});

describe('the services configuration', () => {
  it('reads the variables the application reads, with the local defaults', () => {
    const config = servicesConfig('/repo', { ES_NODES: '', ELASTICSEARCH_URL: 'http://127.0.0.1:9260' });
    expect(config).toMatchObject({
      databaseUrl: 'mysql://root@127.0.0.1:3306/videos',
      elasticsearchUrl: 'http://127.0.0.1:9260',
      servicesDir: '/repo/.data',
      cacheDir: '/repo/.cache',
      esVersion: '9.5.3',
      s3proxyVersion: '4.1.0',
      esNodes: 1,
      esTransportPort: 9300,
      es2TransportPort: 9301,
    });
  });

  it('takes no other count of nodes than 1 or 2', () => {
    expect(() => servicesConfig('/repo', { ES_NODES: '3' })).toThrow("ES_NODES must be 1 or 2, not '3'");
  });
});

describe('what the services tool prints', () => {
  it('one aligned line per service', () => {
    expect(upLine('redis', 'started', 'redis://127.0.0.1:6379')).toBe(
      'redis          started  redis://127.0.0.1:6379',
    );
    expect(statusLine('s3proxy', false, 'http://127.0.0.1:9000')).toBe(
      's3proxy        down  http://127.0.0.1:9000',
    );
    expect(statusLine('mysql', true, 'mysql://root@127.0.0.1:3306/videos')).toBe(
      'mysql          up    mysql://root@127.0.0.1:3306/videos (external)',
    );
  });
});

describe('the services lock', () => {
  // The tool's progress lines (`[services] …`) are for a person at a terminal, not for the test's output.
  beforeEach(() => jest.spyOn(process.stderr, 'write').mockImplementation(() => true));
  afterEach(() => jest.restoreAllMocks());
  it('lets one run at a time work in a services directory', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'services-lock-'));
    const events: string[] = [];
    const run = (name: string) =>
      withLock(dir, async () => {
        events.push(`${name} in`);
        await sleep(150);
        events.push(`${name} out`);
      });
    try {
      await Promise.all([run('a'), run('b')]);
      expect([events[0]!.slice(2), events[1]!.slice(2)]).toEqual(['in', 'out']);
      expect(events[0]![0]).toBe(events[1]![0]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('the Redis probe', () => {
  /** A TCP server that answers every connection with `reply`. */
  async function answering(reply: string) {
    const server = createServer((socket) => socket.once('data', () => socket.end(reply)));
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    const port = (server.address() as { port: number }).port;
    return { port, close: () => new Promise((done) => server.close(done)) };
  }

  it.each([
    ['+PONG\r\n', true],
    ['-NOAUTH Authentication required.\r\n', true],
    ['HTTP/1.1 400 Bad Request\r\n\r\n', false],
  ])('counts %j as a Redis: %s', async (reply, answers) => {
    const server = await answering(reply);
    try {
      expect(
        await redisAnswers({ host: '127.0.0.1', port: server.port, user: '', password: '' }, 1_000),
      ).toBe(answers);
    } finally {
      await server.close();
    }
  });
});
