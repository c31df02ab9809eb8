import { connect, type Socket } from 'node:net';
import { DASHBOARD_PATH } from '@app/api/admin/dashboard-path';
import { bootSystem } from '../support/boot';
import { rssKb, waitFor } from '../support/processes';
import { seedVideos } from '../support/seed';
import { token } from '../support/system';

/**
 * What one caller can make a process hold (docs/contract.md §4): a body the route does not take is
 * refused before it is read, whoever sends it, and the connection closed; a client that trickles its
 * headers is cut off. Raw sockets, since a well-behaved client library would not misbehave so.
 * @runs-alone: it measures the API's memory around 200 sockets.
 */
const HEADERS_TIMEOUT_MS = 2_000;
const AUTHOR = 'bounds-author';

interface RawAnswer {
  status: number;
  headers: string;
  /** Whether the server closed the connection after answering. */
  closed: boolean;
}

/** Sends `head` (and `body` after it, unless the answer came first), reads one answer. */
function rawRequest(url: string, head: string, body = ''): Promise<RawAnswer> {
  const { hostname, port } = new URL(url);
  return new Promise((done, fail) => {
    const socket = connect(Number(port), hostname);
    let received = '';
    const timer = setTimeout(() => {
      socket.destroy();
      fail(new Error(`no answer to ${head.split('\r\n')[0]}`));
    }, 20_000);
    socket.on('connect', () => {
      socket.write(head);
      if (body) socket.write(body);
    });
    socket.on('data', (chunk) => (received += chunk.toString('latin1')));
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearTimeout(timer);
      const [statusLine = '', ...rest] = received.split('\r\n\r\n')[0]!.split('\r\n');
      done({
        status: Number(statusLine.split(' ')[1]),
        headers: rest.join('\n').toLowerCase(),
        closed: true,
      });
    });
  });
}

describe('request bounds: bodies, headers, memory', () => {
  const bearer = token(AUTHOR);
  const boot = bootSystem({
    system: {
      env: {
        HTTP_HEADERS_TIMEOUT_MS: String(HEADERS_TIMEOUT_MS),
        ADMIN_USERNAME: 'admin',
        ADMIN_PASSWORD: 'admin-password-123',
      },
      worker: false,
    },
  });

  beforeAll(async () => {
    const [trashed] = await seedVideos(boot.context, 1, { authorId: AUTHOR });
    expect(
      (
        await fetch(`${boot.system.api}/api/videos/${trashed}`, {
          method: 'DELETE',
          headers: { authorization: `Bearer ${bearer}` },
          signal: AbortSignal.timeout(20_000),
        })
      ).status,
    ).toBe(200);
  }, 60_000);

  const head = (method: string, path: string, headers: string[]) =>
    [`${method} ${path} HTTP/1.1`, 'Host: 127.0.0.1', ...headers, '', ''].join('\r\n');

  async function trashOperations(): Promise<number> {
    const rows: { n: string }[] = await boot.context.dataSource.query(
      'SELECT COUNT(*) AS n FROM trash_operations',
    );
    return Number(rows[0]!.n);
  }

  it.each([
    ['without a token', [] as string[]],
    ['with a valid token', [`Authorization: Bearer ${token(AUTHOR)}`]],
  ])(
    'refuses a body to a route that takes none, %s: 413 before reading it, connection closed, nothing done',
    async (_who, auth) => {
      const answer = await rawRequest(
        boot.system.api,
        head('POST', '/api/videos/trash/restore', [
          ...auth,
          'Content-Type: application/json',
          'Content-Length: 1048576',
        ]),
        '{"a":',
      );
      expect(answer).toMatchObject({ status: 413, closed: true });
      expect(answer.headers).toContain('content-type: application/problem+json');
      expect(answer.headers).toContain('connection: close');
      expect(await trashOperations()).toBe(0);
    },
    30_000,
  );

  it('refuses a chunked body of unknown length the same way', async () => {
    const answer = await rawRequest(
      boot.system.api,
      head('DELETE', '/api/videos/trash', [`Authorization: Bearer ${bearer}`, 'Transfer-Encoding: chunked']),
      '5\r\nhello\r\n',
    );
    expect(answer).toMatchObject({ status: 413, closed: true });
    expect(await trashOperations()).toBe(0);
  }, 30_000);

  it('still serves the same route without a body', async () => {
    const answer = await fetch(`${boot.system.api}/api/videos/trash`, {
      headers: { authorization: `Bearer ${bearer}` },
      signal: AbortSignal.timeout(20_000),
    });
    expect(answer.status).toBe(200);
  }, 30_000);

  it('gates the dashboard before reading its bodies, and bounds them', async () => {
    const small = await rawRequest(
      boot.system.api,
      head('PUT', `${DASHBOARD_PATH}/api/queues/x/pause`, [
        'Content-Type: application/json',
        'Content-Length: 2',
        // The 401 keeps the connection open otherwise: this client reads one answer, to the close.
        'Connection: close',
      ]),
      '{}',
    );
    expect(small.status).toBe(401);
    const large = await rawRequest(
      boot.system.api,
      head('PUT', `${DASHBOARD_PATH}/api/queues/x/pause`, [
        'Content-Type: application/json',
        'Content-Length: 1048576',
      ]),
    );
    expect(large).toMatchObject({ status: 413, closed: true });
  }, 30_000);

  it.each([
    ['without a token', [] as string[], 401],
    ['from a caller who is no admin', [`Authorization: Bearer ${token(AUTHOR)}`], 403],
  ])(
    "refuses the synonym set's body %s before reading it, connection closed",
    async (_who, auth, status) => {
      const answer = await rawRequest(
        boot.system.api,
        head('PUT', '/api/search/synonyms', [
          ...auth,
          'Content-Type: application/json',
          'Content-Length: 1048576',
        ]),
        '{"rules": [',
      );
      expect(answer).toMatchObject({ status, closed: true });
      expect(answer.headers).toContain('content-type: application/problem+json');
    },
    30_000,
  );

  it("bounds an admin's synonym set: beyond 8 MiB, 413 before reading it", async () => {
    const admin = `Authorization: Bearer ${token('bounds-admin', ['admin'])}`;
    const answer = await rawRequest(
      boot.system.api,
      head('PUT', '/api/search/synonyms', [
        admin,
        'Content-Type: application/json',
        `Content-Length: ${8 * 1024 * 1024 + 1}`,
      ]),
      '{"rules": [',
    );
    expect(answer).toMatchObject({ status: 413, closed: true });
    // Within the bound, the same admin's body is read.
    const saved = await fetch(`${boot.system.api}/api/search/synonyms`, {
      method: 'PUT',
      headers: { authorization: admin.slice('Authorization: '.length), 'content-type': 'application/json' },
      body: JSON.stringify({ rules: [] }),
      signal: AbortSignal.timeout(20_000),
    });
    expect(saved.status).toBe(200);
  }, 30_000);

  it('closes a connection whose headers never end', async () => {
    const { hostname, port } = new URL(boot.system.api);
    const socket = connect(Number(port), hostname);
    const closed = new Promise<true>((done) => socket.on('close', () => done(true)));
    socket.on('error', () => undefined);
    socket.write('GET /api/videos/search?q=x HTTP/1.1\r\nHost: 127.0.0.1\r\n');
    // One header line at a time, never the blank line that ends them.
    const trickle = setInterval(() => socket.write('X-Slow: 1\r\n'), 200);
    try {
      await expect(
        waitFor('the server to close the socket', () => closed, { timeoutMs: 15_000 }),
      ).resolves.toBe(true);
    } finally {
      clearInterval(trickle);
      socket.destroy();
    }
  }, 30_000);

  it('holds no memory for 200 unauthenticated sockets announcing 1 MiB bodies', async () => {
    const pid = boot.system.processes[0]!.child.pid!;
    const before = rssKb(pid);
    const sockets: Socket[] = [];
    const answers = await Promise.all(
      Array.from({ length: 200 }, () => {
        const { hostname, port } = new URL(boot.system.api);
        return new Promise<number>((done) => {
          const socket = connect(Number(port), hostname);
          sockets.push(socket);
          let received = '';
          socket.on('error', () => undefined);
          socket.on('data', (chunk) => (received += chunk.toString('latin1')));
          socket.on('close', () => done(Number(received.split(' ')[1])));
          socket.on('connect', () => {
            socket.write(head('POST', '/api/videos/trash/restore', ['Content-Length: 1048576']));
            // Half the body, then nothing: a client that would hold the server's buffer if it read.
            socket.write(Buffer.alloc(512 * 1024, 'x'));
          });
        });
      }),
    );
    for (const socket of sockets) socket.destroy();
    // Each was answered 413 and closed; a socket closed with unread data in it may be reset before
    // its client reads the answer (NaN here), but none was ever let through.
    expect(answers.filter((status) => status !== 413 && !Number.isNaN(status))).toEqual([]);
    expect(answers.filter((status) => status === 413).length).toBeGreaterThan(0);
    const after = rssKb(pid);
    expect([before, after].every(Number.isFinite)).toBe(true);
    expect((after - before) / 1024).toBeLessThan(50);
  }, 60_000);
});
