import { bootSystem } from '../support/boot';
import { startModuleProbe, type ModuleProbe } from '../support/module-probe';
import { waitFor } from '../support/processes';
import { remains, seedVideos } from '../support/seed';
import { call, token } from '../support/system';

const admin = token('boss', ['admin']);
/** Each command this many times, after one warm-up run of each. */
const REQUESTS = 30;
const PURGE_WITHIN_MS = 60_000;
const PROBE_WITHIN_MS = 10_000;
const START_WITHIN_MS = 120_000;
const TEST_WITHIN_MS = 180_000;

/**
 * No request resolves a module. Node answers a repeated `require` from its cache of resolutions
 * only when the same caller loaded the module first; otherwise every call resolves it from disk
 * again. mysql2 requires its promise wrapper inside `connection.promise()`, and
 * TypeORM calls that on every query: loading `mysql2/promise` at startup made every query of the
 * product resolve that module again, several times a soft delete. The API and
 * the worker run the hot paths (soft delete, restore, search, permanent delete and its purge)
 * after one warm-up run of each, and the module probe counts what they resolve meanwhile.
 */
describe('the hot paths resolve no module per request', () => {
  let probe: ModuleProbe;

  beforeAll(() => {
    probe = startModuleProbe();
  });
  const boot = bootSystem({
    system: { env: () => ({ ...probe.env, PURGE_SWEEP_INTERVAL_MS: '1000' }) },
    timeoutMs: START_WITHIN_MS,
  });
  afterAll(() => probe?.remove());

  const ok = async (method: string, path: string) => {
    const response = await call(method, `${boot.system.api}${path}`, admin);
    expect({ method, path, status: response.status }).toEqual({ method, path, status: 200 });
  };
  const purged = (ids: string[]) =>
    waitFor(
      `purge of ${ids.length} videos`,
      async () => {
        const left = await Promise.all(ids.map((id) => remains(boot.context, id)));
        return left.every(({ row }) => row === null) ? left : undefined;
      },
      { timeoutMs: PURGE_WITHIN_MS },
    );
  /** Soft delete, restore and search each video; permanently delete `removed` and wait for the purges. */
  const commands = async (kept: string[], removed: string[]) => {
    for (const id of kept) {
      await ok('DELETE', `/api/videos/${id}?retentionDays=7`);
      await ok('POST', `/api/videos/${id}/restore`);
      await ok('GET', `/api/videos/search?q=${encodeURIComponent('hot path')}&limit=5`);
    }
    for (const id of removed) await ok('DELETE', `/api/videos/${id}?permanent=true`);
    await purged(removed);
  };
  /** How often the API and the worker (in that order) have resolved each module so far. */
  const resolutions = () =>
    Promise.all(
      boot.system.processes
        .slice(0, 2)
        .map((running) => probe.resolutions(running.child.pid!, PROBE_WITHIN_MS)),
    );

  it(
    'resolves modules at the first request of each kind, never again at each later one',
    async () => {
      const ids = await seedVideos(boot.context, 2 * (REQUESTS + 1), { title: (i) => `Hot path video ${i}` });
      const [warmKept, ...kept] = ids.slice(0, REQUESTS + 1);
      const [warmRemoved, ...removed] = ids.slice(REQUESTS + 1);
      await commands([warmKept!], [warmRemoved!]);

      const before = await resolutions();
      await commands(kept, removed);
      const after = await resolutions();

      // The probe counts: the processes resolved the product's own modules when they started.
      for (const counts of after)
        expect(Object.keys(counts).some((url) => url.includes('/node_modules/@nestjs/core/'))).toBe(true);
      // A module resolved once a request (or a query) would have grown by REQUESTS or more.
      const perRequest = after.map((counts, i) =>
        Object.entries(counts)
          .map(([url, count]) => [url, count - (before[i]![url] ?? 0)] as const)
          .filter(([, grown]) => grown >= REQUESTS),
      );
      expect(perRequest).toEqual([[], []]);
    },
    TEST_WITHIN_MS,
  );
});
