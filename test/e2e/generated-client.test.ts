import { execFile } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import openapiTS, { astToString } from 'openapi-typescript';
import { bootSystem } from '../support/boot';
import { waitFor } from '../support/processes';
import { seedVideos } from '../support/seed';
import { token } from '../support/system';
import type { Answer, Problem, VideoApiCalls } from './generated-client/expected';

const ROOT = resolve(__dirname, '../..');
const CLIENT_DIR = resolve(__dirname, 'generated-client');
const author = token('client-author');
const stranger = token('client-stranger');
const PROBLEM = /^application\/problem\+json/;

/** Runs tsc over the client folder; resolves with its output, which is empty when everything compiles. */
function typecheck(timeoutMs: number): Promise<string> {
  const tsc = resolve(ROOT, 'node_modules/typescript/bin/tsc');
  return new Promise((done) => {
    execFile(
      process.execPath,
      [tsc, '-p', resolve(CLIENT_DIR, 'tsconfig.json'), '--pretty', 'false'],
      { cwd: ROOT, timeout: timeoutMs },
      (error, stdout, stderr) => done(error ? `${error.message}\n${stdout}${stderr}` : `${stdout}${stderr}`),
    );
  });
}

/** An RFC 9457 problem as application/problem+json, with this status. */
function expectProblem(answer: Answer<unknown>, status: number): Problem {
  expect([answer.status, answer.contentType]).toEqual([status, expect.stringMatching(PROBLEM)]);
  expect(answer.data).toBeUndefined();
  const problem = answer.problem!;
  expect(problem.status).toBe(status);
  for (const field of [problem.type, problem.title, problem.detail])
    expect(field).toEqual(expect.any(String));
  return problem;
}

describe('a client generated from /docs-json (openapi-typescript + openapi-fetch)', () => {
  let api: VideoApiCalls;
  let videoId: string;
  const boot = bootSystem({ system: { worker: false } });

  beforeAll(async () => {
    [videoId] = (await seedVideos(boot.context, 1, {
      title: () => 'Generated wombat client',
      authorId: 'client-author',
    })) as [string];
    // Compiled by ts-jest without type checking, so the missing-or-stale generated types cannot
    // stop it loading; the first test type-checks it against the fresh ones.
    api = jest
      .requireActual<{ videoApiCalls(baseUrl: string): VideoApiCalls }>('./generated-client/calls')
      .videoApiCalls(boot.system.api);
  }, 60_000);

  it('generates types from the served document that the calls compile against', async () => {
    const ast = await openapiTS(new URL('/docs-json', boot.system.api), { silent: true });
    const source = astToString(ast);
    for (const id of [
      'listVideoSearch',
      'listVideoSuggestions',
      'deleteVideo',
      'restoreVideo',
      'listTrash',
      'getVideoDeletion',
      'eraseAuthorVideos',
      'getSynonyms',
      'putSynonyms',
      'getLiveness',
      'getReadiness',
    ]) {
      expect(source).toContain(`${id}: {`);
    }
    await writeFile(
      resolve(CLIENT_DIR, 'video-api.ts'),
      `// Generated from ${boot.system.api}/docs-json by openapi-typescript; do not edit.\n${source}`,
    );
    expect(await typecheck(90_000)).toBe('');
  }, 120_000);

  it('searches', async () => {
    const answer = await api.search({ q: 'wombat', limit: 5 }, author);
    expect(answer.status).toBe(200);
    expect(answer.contentType).toMatch(/^application\/json/);
    expect(answer.data).toMatchObject({ page: 1, limit: 5, total: 1, totalPages: 1 });
    expect(answer.data?.totalRelation).toBe('eq');
    expect(answer.data?.nextCursor).toBeUndefined();
    expect(answer.data!.items.map((item) => [item.id, item.language])).toEqual([[videoId, 'eng']]);
  }, 30_000);

  it('searches with highlights and facets, and completes a title', async () => {
    const answer = await api.search({ q: 'wombat', highlight: true, facets: 'year,author' }, author);
    expect(answer.status).toBe(200);
    expect(answer.data!.items[0]!.highlights).toEqual({ title: ['Generated <mark>wombat</mark> client'] });
    expect(answer.data!.facets!.author).toEqual([{ value: 'client-author', count: 1 }]);
    expect(answer.data!.facets!.year).toHaveLength(1);

    const suggestions = await api.suggest({ q: 'generated wom', limit: 3 }, author);
    expect(suggestions).toMatchObject({
      status: 200,
      data: { items: [{ id: videoId, title: 'Generated wombat client' }] },
    });
    expectProblem(await api.suggest({ q: 'generated', limit: 99 }, author), 400);
  }, 30_000);

  it('soft-deletes, then restores', async () => {
    const found = async () => (await api.search({ q: 'wombat' }, author)).data!.items.map((item) => item.id);
    const deleted = await api.deleteVideo(videoId, { retentionDays: 7 }, author);
    expect(deleted).toMatchObject({ status: 200, data: { id: videoId, state: 'soft_deleted' } });
    expect(await found()).toEqual([]);

    const restored = await api.restoreVideo(videoId, author);
    expect(restored).toMatchObject({ status: 200, data: { id: videoId, state: 'active' } });
    // Back in search once Elasticsearch refreshes (about a second), not necessarily at once, nor for
    // good at the first sight of it: a search before that refresh may still read the document as it
    // was before the delete, and a refresh that began before the restore's write shows the deleted one.
    const shown = await waitFor(
      'the restored video in search',
      async () => {
        const ids = await found();
        return ids.includes(videoId) ? ids : undefined;
      },
      { timeoutMs: 15_000 },
    );
    expect(shown).toEqual([videoId]);
  }, 30_000);

  it('lists the trash, follows a trash operation, reads a deletion receipt, and counts an erasure in a dry run', async () => {
    const deleted = await api.deleteVideo(videoId, { retentionDays: 3 }, author);
    expect(deleted.status).toBe(200);
    const trash = await api.listTrash({ limit: 10 }, author);
    expect(trash).toMatchObject({ status: 200, data: { page: 1, limit: 10, total: 1, totalPages: 1 } });
    expect(trash.data!.items.map((item) => item.id)).toEqual([videoId]);
    const receipt = await api.getVideoDeletion(videoId, author);
    expect(receipt.data).toMatchObject({
      id: videoId,
      state: 'soft_deleted',
      reason: 'retention',
      requestedBy: 'client-author',
      completedAt: null,
    });
    expect(receipt.data!.purgeAt).toBe(trash.data!.items[0]!.purgeAt);
    const dryRun = await api.eraseAuthorVideos('client-author', { dryRun: true }, author);
    expect(dryRun).toMatchObject({ status: 200, data: { videos: 1, dryRun: true } });
    expectProblem(await api.eraseAuthorVideos('client-author', { dryRun: true }, stranger), 403);
    expectProblem(await api.listTrash({ limit: 101 }, author), 400);
    // No worker runs here: the operation is accepted and stays running, and an empty answers it.
    const restoring = await api.restoreTrash({}, author);
    expect(restoring).toMatchObject({ status: 202, data: { videos: 1, state: 'running' } });
    const operationId = restoring.data!.operationId;
    expect(await api.emptyTrash({}, author)).toMatchObject({ status: 202, data: { operationId } });
    expect(await api.getTrashOperation(operationId, author)).toMatchObject({
      status: 200,
      data: { operationId, authorId: 'client-author', kind: 'restore', total: 1, done: 0, completedAt: null },
    });
    expectProblem(await api.getTrashOperation(operationId, stranger), 403);
    expectProblem(await api.getTrashOperation('not-an-operation', author), 400);
    expectProblem(await api.getTrashOperation('00000000-0000-4000-8000-000000000000', author), 404);
    expectProblem(await api.restoreTrash({ authorId: 'client-author' }, stranger), 403);
    expect((await api.restoreVideo(videoId, author)).status).toBe(200);
    expectProblem(await api.getVideoDeletion(videoId, author), 404);
  }, 30_000);

  it('gets problems: 401 without a token, 400 for bad input, 403 and 404', async () => {
    expectProblem(await api.search({ q: 'wombat' }), 401);

    const badLimit = expectProblem(await api.search({ q: 'wombat', limit: 0 }, author), 400);
    expect(badLimit.errors!.map((e) => e.name)).toEqual(['limit']);
    const badId = expectProblem(await api.deleteVideo('not-a-uuid', {}, author), 400);
    expect(badId.errors!.map((e) => e.name)).toEqual(['id']);

    expectProblem(await api.deleteVideo(videoId, {}, stranger), 403);
    expectProblem(await api.restoreVideo('00000000-0000-4000-8000-000000000000', author), 404);
  }, 30_000);

  it('reads and replaces the synonym set as an admin, guarded by its entity tag', async () => {
    const admin = token('client-admin', ['admin']);
    expect(await api.getSynonyms(admin)).toMatchObject({ status: 200, data: { rules: [] } });
    const saved = await api.putSynonyms(
      { rules: ['wombats, marsupials', 'gen => generated'] },
      undefined,
      admin,
    );
    expect(saved).toMatchObject({
      status: 200,
      data: { rules: ['wombats, marsupials', 'gen => generated'] },
    });
    expect((await api.search({ q: 'marsupial client' }, author)).data!.items.map((item) => item.id)).toEqual([
      videoId,
    ]);
    const bad = expectProblem(
      await api.putSynonyms({ rules: ['ok, fine', 'nothing =>'] }, undefined, admin),
      400,
    );
    expect(bad.errors!.map((e) => e.name)).toEqual(['rules[1]']);
    expectProblem(await api.putSynonyms({ rules: [] }, '"0-0000000000000000"', admin), 412);
    expectProblem(await api.getSynonyms(author), 403);
    expect(await api.putSynonyms({ rules: [] }, undefined, admin)).toMatchObject({
      status: 200,
      data: { rules: [] },
    });
  }, 30_000);

  it('reads the public probes without a token', async () => {
    expect(await api.liveness()).toMatchObject({ status: 200, data: { status: 'ok' } });
    const readiness = await api.readiness();
    expect(readiness).toMatchObject({ status: 200, data: { status: 'ok' } });
    expect(Object.keys(readiness.data!.details).sort()).toEqual(['elasticsearch', 'mysql', 'redis', 's3']);
  }, 30_000);
});
