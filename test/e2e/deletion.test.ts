import { deletionJobId } from '@app/shared/queue/jobs';
import { JobQueues } from '@app/shared/queue/job-queues.service';
import { bootSystem } from '../support/boot';
import { sleep, waitFor } from '../support/processes';
import { remains, seedVideos } from '../support/seed';
import { call, token } from '../support/system';

const DAY = 86_400_000;
const author = token('author-1');
const stranger = token('author-2');
const admin = token('boss', ['admin']);

interface DeleteBody {
  id: string;
  state: string;
  deletedAt: string;
  purgeAt: string;
}

describe('DELETE /api/videos/{id} and POST /api/videos/{id}/restore (contract §6, §8)', () => {
  let queues: JobQueues;
  const boot = bootSystem({ system: { env: { PURGE_SWEEP_INTERVAL_MS: '1000' } } });

  beforeAll(() => {
    queues = boot.context.get(JobQueues);
  });

  const url = (id: string, query = '') => `${boot.system.api}/api/videos/${id}${query}`;
  const del = (id: string, query = '', bearer = author) => call<DeleteBody>('DELETE', url(id, query), bearer);
  const restore = (id: string, bearer = author) => call('POST', url(id, '/restore'), bearer);
  const searchIds = async (q: string) => {
    const { body } = await call<{ items: { id: string }[] }>(
      'GET',
      `${boot.system.api}/api/videos/search?q=${encodeURIComponent(q)}&limit=100`,
      author,
    );
    return body.items.map((item) => item.id);
  };
  const purged = (id: string) =>
    waitFor(`purge of ${id}`, async () => {
      const left = await remains(boot.context, id);
      return left.row === null && left.audits.length === 1 ? left : undefined;
    });

  describe('soft delete', () => {
    it('hides an active video at once, keeps its media and schedules the purge at deletedAt + 30 days', async () => {
      const [id] = await seedVideos(boot.context, 1, { title: () => 'Ephemeral kangaroo lecture' });
      expect(await searchIds('kangaroo')).toEqual([id]);

      const response = await del(id!);
      expect(response.status).toBe(200);
      expect(Object.keys(response.body).sort()).toEqual(['deletedAt', 'id', 'purgeAt', 'state']);
      expect(response.body).toMatchObject({ id, state: 'soft_deleted' });
      const deletedAt = Date.parse(response.body.deletedAt);
      expect(response.body.deletedAt).toBe(new Date(deletedAt).toISOString());
      expect(Date.parse(response.body.purgeAt) - deletedAt).toBe(30 * DAY);
      expect(Math.abs(Date.now() - deletedAt)).toBeLessThan(60_000);

      expect(await searchIds('kangaroo')).toEqual([]);
      const left = await remains(boot.context, id!);
      expect(left).toMatchObject({
        row: { state: 'soft_deleted' },
        objects: 2,
        document: { state: 'soft_deleted' },
      });
      const job = await queues.queue('video-deletion').getJob(deletionJobId(id!));
      expect(await job?.getState()).toBe('delayed');
    });

    it('is idempotent: deletedAt keeps its value; a given retentionDays recomputes purgeAt from it', async () => {
      const [id] = await seedVideos(boot.context, 1);
      const first = await del(id!, '?retentionDays=10');
      expect(Date.parse(first.body.purgeAt) - Date.parse(first.body.deletedAt)).toBe(10 * DAY);

      const again = await del(id!);
      expect(again.status).toBe(200);
      expect(again.body).toEqual(first.body);

      const shorter = await del(id!, '?retentionDays=1');
      expect(shorter.body.deletedAt).toBe(first.body.deletedAt);
      expect(Date.parse(shorter.body.purgeAt) - Date.parse(first.body.deletedAt)).toBe(DAY);
    });

    it('reads retentionDays as digits, leading zeros included', async () => {
      const [id] = await seedVideos(boot.context, 1);
      const response = await del(id!, '?retentionDays=00005');
      expect(response.status).toBe(200);
      expect(Date.parse(response.body.purgeAt) - Date.parse(response.body.deletedAt)).toBe(5 * DAY);
    });

    it('accepts the id in any letter case and answers with it normalized', async () => {
      const [id] = await seedVideos(boot.context, 1);
      const response = await del(id!.toUpperCase());
      expect(response.status).toBe(200);
      expect(response.body.id).toBe(id);
    });

    it('treats permanent=<anything but true> as a soft delete', async () => {
      const [id] = await seedVideos(boot.context, 1);
      const response = await del(id!, '?permanent=yes');
      expect(response.body.state).toBe('soft_deleted');
    });

    it('with retentionDays=0 purges within seconds: no object, no row, no document, one audit record', async () => {
      const [id] = await seedVideos(boot.context, 1, { objectsPerVideo: 3 });
      expect((await del(id!, '?retentionDays=0')).status).toBe(200);
      const left = await purged(id!);
      expect(left).toEqual({
        row: null,
        objects: 0,
        document: null,
        // The purge at retention end is the soft delete's: the audit names who asked for it.
        audits: [{ reason: 'retention', requested_by: 'author-1', objects_deleted: 3 }],
      });
    }, 60_000);

    it('purges at once when a new retention puts the purge date in the past', async () => {
      const [id] = await seedVideos(boot.context, 1);
      await del(id!, '?retentionDays=30');
      await del(id!, '?retentionDays=0');
      expect((await purged(id!)).objects).toBe(0);
    }, 60_000);
  });

  describe('permanent delete', () => {
    it('answers {id, state: deleted}, then 404 to any further DELETE or restore, and cleans up everything', async () => {
      const [id] = await seedVideos(boot.context, 1, { title: () => 'Permanent platypus talk' });
      const response = await del(id!, '?permanent=TRUE', admin);
      expect(response).toMatchObject({ status: 200, body: { id, state: 'deleted' } });
      expect(Object.keys(response.body).sort()).toEqual(['id', 'state']);
      expect(await searchIds('platypus')).toEqual([]);
      expect((await del(id!, '', admin)).status).toBe(404);
      expect((await restore(id!, admin)).status).toBe(404);

      const left = await purged(id!);
      expect(left).toEqual({
        row: null,
        objects: 0,
        document: null,
        audits: [{ reason: 'permanent', requested_by: 'boss', objects_deleted: 2 }],
      });
      expect((await del(id!, '?permanent=true', admin)).status).toBe(404);
    }, 60_000);

    it('deletes a soft-deleted video, bringing its purge forward', async () => {
      const [id] = await seedVideos(boot.context, 1);
      await del(id!, '?retentionDays=30');
      expect((await del(id!, '?permanent=true')).body).toEqual({ id, state: 'deleted' });
      expect((await purged(id!)).audits[0]!.reason).toBe('permanent');
    }, 60_000);
  });

  describe('restore', () => {
    it('brings a soft-deleted video back into search and cancels its purge', async () => {
      const [id] = await seedVideos(boot.context, 1, { title: () => 'Returning wombat keynote' });
      await del(id!, '?retentionDays=5');
      expect(await searchIds('wombat')).toEqual([]);

      const response = await restore(id!);
      expect(response).toMatchObject({ status: 200, body: { id, state: 'active' } });
      expect(Object.keys(response.body).sort()).toEqual(['id', 'state']);
      // Back in search once Elasticsearch refreshes (about a second; contract §8 promises no more).
      await waitFor(
        'the restored video in search',
        async () => ((await searchIds('wombat')).includes(id!) ? true : undefined),
        { timeoutMs: 15_000, intervalMs: 200 },
      );
      expect(await searchIds('wombat')).toEqual([id]);
      expect(await queues.queue('video-deletion').getJob(deletionJobId(id!))).toBeUndefined();
      const rows: { purge_at: Date | null; deleted_at: Date | null }[] = await boot.context.dataSource.query(
        'SELECT purge_at, deleted_at FROM videos WHERE id = ?',
        [id],
      );
      expect(rows).toEqual([{ purge_at: null, deleted_at: null }]);
    });

    it('cancels a purge that would otherwise run now', async () => {
      const [id] = await seedVideos(boot.context, 1);
      await del(id!, '?retentionDays=3');
      await restore(id!);
      // A purge for this video, if one were still pending, would find it active and leave it.
      await queues.ensureDeletionJob(id!, 0);
      await sleep(1_500);
      expect(await remains(boot.context, id!)).toMatchObject({
        row: { state: 'active' },
        objects: 2,
        audits: [],
      });
    }, 60_000);

    it('answers an active video with an idempotent 200', async () => {
      const [id] = await seedVideos(boot.context, 1);
      expect(await restore(id!)).toMatchObject({ status: 200, body: { id, state: 'active' } });
    });
  });

  describe('who may act', () => {
    it('refuses another caller with 403 and changes nothing; an admin may act on any video', async () => {
      const [id] = await seedVideos(boot.context, 1);
      for (const response of [
        await del(id!, '', stranger),
        await del(id!, '?permanent=true', stranger),
        await restore(id!, stranger),
      ]) {
        expect(response.status).toBe(403);
        expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      }
      expect((await remains(boot.context, id!)).row).toEqual({ state: 'active' });
      expect((await del(id!, '', admin)).status).toBe(200);
      expect((await restore(id!, admin)).status).toBe(200);
    });

    it('answers 404 for a well-formed id that names no video', async () => {
      const missing = '3f2b8c1e-0d4a-4b6f-9e21-7c5d2a1b0e9f';
      expect((await del(missing)).status).toBe(404);
      expect((await del(missing, '?permanent=true')).status).toBe(404);
      expect((await restore(missing)).status).toBe(404);
    });

    it('checks the token before the input: a bad id without a token is 401', async () => {
      expect((await call('DELETE', url('not-a-uuid'))).status).toBe(401);
    });
  });

  describe('bad input is a 400 problem naming each parameter, and changes nothing', () => {
    it.each(['-1', '3651', '1.5', 'abc', '', '+1', ' 1', '1e3', '00003651', '9'.repeat(400)])(
      'retentionDays=%p',
      async (value) => {
        const [id] = await seedVideos(boot.context, 1);
        for (const query of [
          `?retentionDays=${encodeURIComponent(value)}`,
          `?permanent=true&retentionDays=${encodeURIComponent(value)}`,
        ]) {
          const response = await call<{ errors: { name: string }[]; status: number }>(
            'DELETE',
            url(id!, query),
            author,
          );
          expect(response.status).toBe(400);
          expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
          expect(response.body.errors.map((e) => e.name)).toEqual(['retentionDays']);
        }
        expect((await remains(boot.context, id!)).row).toEqual({ state: 'active' });
      },
    );

    it.each([
      'not-a-uuid',
      '{3f2b8c1e-0d4a-4b6f-9e21-7c5d2a1b0e9f}',
      '3f2b8c1e0d4a4b6f9e217c5d2a1b0e9f',
      '3f2b8c1e-0d4a-0b6f-9e21-7c5d2a1b0e9f',
      '3f2b8c1e-0d4a-4b6f-7e21-7c5d2a1b0e9f',
      'urn:uuid:3f2b8c1e-0d4a-4b6f-9e21-7c5d2a1b0e9f',
      '%203f2b8c1e-0d4a-4b6f-9e21-7c5d2a1b0e9f',
    ])('id %p', async (id) => {
      for (const response of [await del(id), await restore(id)]) {
        expect(response.status).toBe(400);
        expect(
          (response.body as unknown as { errors: { name: string }[] }).errors.map((e) => e.name),
        ).toEqual(['id']);
      }
    });

    it('names every bad parameter at once', async () => {
      const response = await call<{ errors: { name: string }[] }>(
        'DELETE',
        url('nope', '?retentionDays=x'),
        author,
      );
      expect(response.body.errors.map((e) => e.name).sort()).toEqual(['id', 'retentionDays']);
    });

    it('accepts the nil and max UUIDs as ids (and finds no video)', async () => {
      expect((await del('00000000-0000-0000-0000-000000000000')).status).toBe(404);
      expect((await del('FFFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFF')).status).toBe(404);
    });
  });
});
