import { createHmac } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isUtf8 } from 'node:buffer';
import fc from 'fast-check';
import { bootSystem } from '../support/boot';
import { ENTRY, runProcess, waitFor } from '../support/processes';
import { seedVideos } from '../support/seed';
import { call, token, type ApiResponse } from '../support/system';

/**
 * One identity rule at every entry (docs/contract.md §3): an author id is well-formed Unicode with
 * no control character, 1–128 code points. MySQL's driver, ioredis and createHash write an unpaired
 * surrogate as U+FFFD, so without the rule `x\uD800`, `x\uDBFF` and `x\uFFFD` were one author. The
 * owner here is the U+FFFD author; every caller below names it through a value that would have
 * collapsed into it, and is refused (401 for a token, 400 naming `authorId` for a parameter)
 * without anything changing.
 */
const OWNER = 'x\uFFFD';
const admin = token('identity-rule-admin', ['admin']);

/** Subjects that are no author id: each would have been the owner, or carries a control character. */
const BAD_SUBJECTS: [string, string][] = [
  ['a lone high surrogate', 'x\uD800'],
  ['the last high surrogate', 'x\uDBFF'],
  ['a lone low surrogate', 'x\uDC00'],
  ['the last low surrogate', 'x\uDFFF'],
  ['a reversed pair', 'x\uDC00\uD800'],
  ['NUL', 'x\u0000'],
  ['a tab', 'x\t'],
  ['ESC', 'x\u001b'],
  ['DEL', 'x\u007f'],
  ['a C1 control (NEL)', 'x\u0085'],
];

/** `authorId` as an attacker sends it in a URL: bytes that are not UTF-8, or that decode to a control. */
const BAD_ENCODED: [string, string][] = [
  ['a lone high surrogate (CESU-8)', 'x%ED%A0%80'],
  ['the last high surrogate (CESU-8)', 'x%ED%AF%BF'],
  ['a lone low surrogate (CESU-8)', 'x%ED%B0%80'],
  ['a reversed pair (CESU-8)', 'x%ED%B0%80%ED%A0%80'],
  ['a byte that is never UTF-8', 'x%FF'],
  ['an overlong NUL', 'x%C0%80'],
  ['a broken escape', 'x%E2%82'],
  ['NUL', 'x%00'],
  ['a tab', 'x%09'],
  ['DEL', 'x%7F'],
  ['a C1 control (NEL)', 'x%C2%85'],
];

/** A valid HS256 token over a payload of these bytes, as only a holder of the key could make. */
function signedPayload(payload: Buffer): string {
  const header = Buffer.from(JSON.stringify({ alg: 'HS256', typ: 'JWT' })).toString('base64url');
  const input = `${header}.${payload.toString('base64url')}`;
  return `${input}.${createHmac('sha256', process.env.JWT_SECRET!).update(input).digest('base64url')}`;
}

function expectInvalidToken(response: ApiResponse): void {
  expect(response.status).toBe(401);
  expect(response.headers.get('www-authenticate')).toBe('Bearer error="invalid_token"');
  expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
}

function expectRefusedAuthorId(response: ApiResponse): void {
  expect(response.status).toBe(400);
  expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  const errors = (response.body as { errors?: { name: string; reason: string }[] }).errors ?? [];
  expect(errors.map((error) => error.name)).toEqual(['authorId']);
  expect(errors[0]!.reason).toMatch(/^authorId must be (percent-encoded UTF-8|1 to 128 characters)/);
}

describe('one identity rule at every entry (§3)', () => {
  let active: string;
  let trashed: string;
  let erasureId: string;
  const boot = bootSystem({ system: { env: { PURGE_SWEEP_INTERVAL_MS: '1000' } } });

  beforeAll(async () => {
    const ids = await seedVideos(boot.context, 3, {
      authorId: OWNER,
      title: (n) => `Identity rule probe ${n}`,
    });
    [active, trashed] = ids as [string, string];
    const deleted = await call(
      'DELETE',
      `${boot.system.api}/api/videos/${trashed}?retentionDays=30`,
      token(OWNER),
    );
    expect(deleted.status).toBe(200);
    // An erasure of another author, to have an erasure id to ask about (an author without videos
    // would be answered 200 with nothing written).
    await seedVideos(boot.context, 1, { authorId: 'erased-elsewhere', title: () => 'Identity rule erased' });
    const asked = await call<{ erasureId: string }>(
      'DELETE',
      `${boot.system.api}/api/authors/erased-elsewhere/videos`,
      admin,
    );
    expect(asked.status).toBe(202);
    erasureId = asked.body.erasureId;
    // Settled before the tests compare stores: the worker completes it and then deletes its events.
    await waitFor(
      'the other erasure completed and its events gone',
      async () => {
        const [row] = await boot.context.dataSource.query<{ state: string; events: string }[]>(
          `SELECT (SELECT state FROM erasures WHERE id = ?) AS state,
                  (SELECT COUNT(*) FROM outbox_events WHERE author_id = 'erased-elsewhere') AS events`,
          [erasureId],
        );
        return row!.state === 'completed' && Number(row!.events) === 0 ? true : undefined;
      },
      { timeoutMs: 60_000 },
    );
  }, 90_000);

  const api = (path: string) => `${boot.system.api}${path}`;

  /** Every row, operation, erasure and event: what a refused request must leave as it was. */
  const everything = async () => ({
    videos: await boot.context.dataSource.query<unknown[]>(
      'SELECT id, author_id, state, version, deleted_at FROM videos ORDER BY id',
    ),
    counts: await boot.context.dataSource.query<unknown[]>(
      `SELECT (SELECT COUNT(*) FROM trash_operations) AS operations,
              (SELECT COUNT(*) FROM erasures) AS erasures,
              (SELECT COUNT(*) FROM outbox_events) AS events,
              (SELECT COUNT(*) FROM deletion_audit) AS audits`,
    ),
  });

  it('the U+FFFD author itself is an author like any other', async () => {
    const own = await call<{ items: { id: string }[] }>('GET', api('/api/videos/trash'), token(OWNER));
    expect([own.status, own.body.items.map((item) => item.id)]).toEqual([200, [trashed]]);
    const found = await call<{ items: { authorId: string }[]; total: number }>(
      'GET',
      api('/api/videos/search?q=probe&authorId=x%EF%BF%BD'),
      admin,
    );
    expect([found.status, found.body.total]).toEqual([200, 2]);
    expect(found.body.items.every((item) => item.authorId === OWNER)).toBe(true);
  });

  it.each(BAD_SUBJECTS)(
    'a token whose sub has %s is refused (401) on every route, and nothing changes',
    async (_name, sub) => {
      const before = await everything();
      const bearer = token(sub, ['admin']);
      const plain = token(sub);
      const owner = encodeURIComponent(OWNER);
      const answers = [
        await call('GET', api('/api/videos/search?q=probe'), plain),
        await call('GET', api('/api/videos/trash'), plain),
        await call('POST', api('/api/videos/trash/restore'), plain),
        await call('DELETE', api('/api/videos/trash'), plain),
        await call('DELETE', api(`/api/videos/${active}`), plain),
        await call('DELETE', api(`/api/videos/${active}?permanent=true`), plain),
        await call('POST', api(`/api/videos/${trashed}/restore`), plain),
        await call('GET', api(`/api/videos/${trashed}/deletion`), plain),
        await call('DELETE', api(`/api/authors/${owner}/videos`), plain),
        await call('DELETE', api(`/api/authors/${owner}/videos?permanent=true`), bearer),
        await call('DELETE', api(`/api/videos/trash?authorId=${owner}`), bearer),
        await call('GET', api(`/api/erasures/${erasureId}`), bearer),
      ];
      for (const answer of answers) expectInvalidToken(answer);
      expect(await everything()).toEqual(before);
    },
  );

  it('a token with an unpaired surrogate in its sub never empties the U+FFFD author’s trash', async () => {
    const emptied = await call('DELETE', api('/api/videos/trash'), token('x\uD800'));
    expectInvalidToken(emptied);
    const own = await call<{ items: { id: string }[] }>('GET', api('/api/videos/trash'), token(OWNER));
    expect(own.body.items.map((item) => item.id)).toEqual([trashed]);
  });

  it('a signed payload that is not UTF-8 is refused, not read with U+FFFD', async () => {
    const exp = Math.floor(Date.now() / 1000) + 300;
    const payload = (subBytes: number[]) =>
      Buffer.concat([
        Buffer.from('{"sub":"x'),
        Buffer.from(subBytes),
        Buffer.from(`","roles":["admin"],"exp":${exp}}`),
      ]);
    // The control: U+FFFD as UTF-8 bytes is the owner, and is let in.
    const fine = await call('GET', api('/api/videos/trash'), signedPayload(payload([0xef, 0xbf, 0xbd])));
    expect(fine.status).toBe(200);
    for (const bytes of [[0xed, 0xa0, 0x80], [0xed, 0xb0, 0x80], [0xff], [0xc0, 0x80]]) {
      const before = await everything();
      expectInvalidToken(await call('DELETE', api('/api/videos/trash'), signedPayload(payload(bytes))));
      expect(await everything()).toEqual(before);
    }
  });

  it.each(BAD_ENCODED)(
    'authorId with %s is a 400 naming it on every route, and nothing changes',
    async (_n, raw) => {
      const before = await everything();
      const answers = [
        await call('GET', api(`/api/videos/search?q=probe&authorId=${raw}`), token('searcher')),
        await call('GET', api(`/api/videos/trash?authorId=${raw}`), admin),
        await call('POST', api(`/api/videos/trash/restore?authorId=${raw}`), admin),
        await call('DELETE', api(`/api/videos/trash?authorId=${raw}`), admin),
        await call('DELETE', api(`/api/authors/${raw}/videos`), admin),
        await call('DELETE', api(`/api/authors/${raw}/videos?dryRun=true`), admin),
        await call('DELETE', api(`/api/authors/${raw}/videos?permanent=true`), admin),
      ];
      for (const answer of answers) expectRefusedAuthorId(answer);
      expect(await everything()).toEqual(before);
    },
  );

  it('without a valid token, a bad authorId is still a 401 first', async () => {
    const answers = [
      await call('GET', api('/api/videos/trash?authorId=x%ED%A0%80')),
      await call('DELETE', api('/api/authors/x%ED%A0%80/videos')),
      await call('DELETE', api('/api/authors/x%ED%A0%80/videos'), token('x\uD800', ['admin'])),
    ];
    expect(answers.map((answer) => answer.status)).toEqual([401, 401, 401]);
  });

  it('any bytes that are not UTF-8, in a query or a path, are a 400 naming authorId', async () => {
    const notUtf8 = fc
      .uint8Array({ minLength: 1, maxLength: 8 })
      .filter((bytes) => !isUtf8(bytes))
      .map((bytes) => [...bytes].map((byte) => `%${byte.toString(16).padStart(2, '0')}`).join(''));
    const before = await everything();
    await fc.assert(
      fc.asyncProperty(notUtf8, fc.boolean(), async (raw, inPath) => {
        const answer = inPath
          ? await call('DELETE', api(`/api/authors/x${raw}/videos`), admin)
          : await call('DELETE', api(`/api/videos/trash?authorId=x${raw}`), admin);
        expectRefusedAuthorId(answer);
      }),
      { numRuns: 60 },
    );
    expect(await everything()).toEqual(before);
  }, 60_000);

  it('any subject with an unpaired surrogate is refused, wherever the surrogate stands', async () => {
    const surrogate = fc.integer({ min: 0xd800, max: 0xdfff }).map((code) => String.fromCharCode(code));
    const text = fc.string({ unit: 'grapheme', maxLength: 20 });
    const before = await everything();
    await fc.assert(
      fc.asyncProperty(text, surrogate, text, async (head, lone, tail) => {
        const sub = `${head}${lone}${tail}`;
        fc.pre(Buffer.from(sub).toString() !== sub);
        expectInvalidToken(await call('DELETE', api('/api/videos/trash'), token(sub)));
      }),
      { numRuns: 60 },
    );
    expect(await everything()).toEqual(before);
  }, 60_000);

  describe('the importer', () => {
    let dir: string;
    beforeAll(() => (dir = mkdtempSync(join(tmpdir(), 'identity-import-'))));
    afterAll(() => rmSync(dir, { recursive: true, force: true }));

    it('counts a record with such an authorId invalid: not stored, not as U+FFFD, not reported imported', async () => {
      const record = (n: number, authorId: string) =>
        Buffer.from(
          `${JSON.stringify({ slug: `identity-import/${n}`, title: `Identity import ${n}`, authorId })}\n`,
        );
      // JSON escapes a lone surrogate as `\ud800`, which is how such a record is written.
      const escaped = [
        'y\uD800',
        'y\uDBFF',
        'y\uDC00',
        'y\uDC00\uD800',
        'y\u0000',
        'y\u0085',
        'y'.repeat(129),
        '',
      ].map((authorId, n) => record(n + 1, authorId));
      // Raw bytes that are not UTF-8 in the file itself.
      const raw = [[0xed, 0xa0, 0x80], [0xff]].map((bytes, n) =>
        Buffer.concat([
          Buffer.from(`{"slug":"identity-import/raw-${n}","title":"Identity import raw ${n}","authorId":"y`),
          Buffer.from(bytes),
          Buffer.from('"}\n'),
        ]),
      );
      const file = join(dir, 'identities.jsonl');
      writeFileSync(file, Buffer.concat([record(0, 'y\uFFFD'), ...escaped, ...raw]));
      const result = await runProcess(ENTRY.cli, ['import', file, '--no-progress'], {}, [], {
        timeoutMs: 60_000,
      });
      expect(result.code).toBe(0);
      const invalid = escaped.length + raw.length;
      expect(result.output).toMatch(new RegExp(`Imported 1 of ${invalid + 1} records`));
      expect(result.output).toMatch(new RegExp(`${invalid} invalid\\.`));
      const rows: { title: string; author_id: string }[] = await boot.context.dataSource.query(
        "SELECT title, author_id FROM videos WHERE title LIKE 'Identity import%'",
      );
      expect(rows).toEqual([{ title: 'Identity import 0', author_id: 'y\uFFFD' }]);
    }, 90_000);
  });
});
