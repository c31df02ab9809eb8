import { loadConfig } from '@app/shared/config/load-config';
import { migrate } from '@app/shared/data-source';
import { ENTRY, runProcess } from '../processes';
import { startOwnRedis } from '../redis-server';
import { remains, seedVideos, waitUntilGone } from '../seed';
import { startSystem, token, type System } from '../system';
import { openTestContext, type TestContext } from '../test-context';
import { isProperUnavailable, runLoops, send, type Sent } from '../traffic';

/**
 * What scenarios 3 and 4 share: seeded videos with titles a search can aim at, a mixed load of
 * deletes and searches that runs while the scenario takes a backing service away and brings it
 * back, and the checks that every video ends in a whole state.
 */

export type DeleteKind = 'soft' | 'soft-now' | 'permanent';
const DELETE_QUERY: Record<DeleteKind, string> = {
  soft: '',
  'soft-now': '?retentionDays=0',
  permanent: '?permanent=true',
};

/** before → stopping → outage → returning → after; a request belongs to the phases it was sent and answered in. */
export type Phase = 'before' | 'stopping' | 'outage' | 'returning' | 'after';

export interface DrillSent extends Sent {
  phase: Phase;
  donePhase: Phase;
  videoId?: string;
  deleteKind?: DeleteKind;
}

export const OBJECTS_PER_VIDEO = 1;

export function drillTitle(index: number): string {
  return `Outage drill ${index} rehearsal`;
}

export async function seedDrillVideos(context: TestContext, count: number): Promise<string[]> {
  return seedVideos(context, count, { title: drillTitle, objectsPerVideo: OBJECTS_PER_VIDEO });
}

export interface Drill {
  context: TestContext;
  system: System;
  ids: string[];
  bearer: string;
  /** The environment the API, the worker and the CLI run with. */
  env: Record<string, string>;
}

/**
 * Gives `body` an API and a worker on `serviceEnv` (pointing at the service the scenario takes
 * away) with a Redis of their own (unless `serviceEnv` names one) and a 1 s purge sweep, and `videos` seeded videos; stops it all after.
 */
export async function runDrill<T>(
  serviceEnv: Record<string, string>,
  videos: number,
  body: (drill: Drill) => Promise<T>,
): Promise<T> {
  // A Redis of the drill's own, unless the scenario brings one (the cluster it takes a node of).
  const redis = serviceEnv.REDIS_URL ? undefined : await startOwnRedis();
  let context: TestContext | undefined;
  let system: System | undefined;
  try {
    const env = { REDIS_URL: redis?.url ?? '', ...serviceEnv, PURGE_SWEEP_INTERVAL_MS: '1000' };
    await migrate(loadConfig({ ...process.env, ...env }));
    context = await openTestContext(env);
    await context.reset();
    const ids = await seedDrillVideos(context, videos);
    system = await startSystem(env);
    return await body({ context, system, ids, bearer: token('chaos', ['admin']), env });
  } finally {
    await system?.stop();
    await context?.close();
    await redis?.stop();
  }
}

/**
 * Waits up to `timeoutMs` for every purge a 200 answered for; returns the deletes sent and, as a
 * violation rather than a thrown wait, the purges still not done then (the checks after it still run).
 */
export async function settleDeletions(context: TestContext, sent: DrillSent[], timeoutMs: number) {
  const deletes = sent.filter((s) => s.kind === 'delete');
  const purged = deletes.filter((s) => s.status === 200 && s.deleteKind !== 'soft').map((s) => s.videoId!);
  if (purged.length === 0) return { deletes, late: [] };
  const late = await waitUntilGone(context, purged, timeoutMs).then(
    () => [],
    async () => {
      const left: { id: string; state: string }[] = await context.dataSource.query(
        'SELECT id, state FROM videos WHERE id IN (?)',
        [purged],
      );
      return [
        `${left.length} of ${purged.length} purges not done ${timeoutMs / 1_000} s after the load: ${JSON.stringify(left)}`,
      ];
    },
  );
  return { deletes, late };
}

/** How long a drill's reconcile of a few hundred videos may run before it counts as hung. */
const RECONCILE_TIMEOUT_MS = 60_000;

/**
 * Runs the reconciler as an operator would (`npm run cli -- reconcile`): the index may lag MySQL
 * after a fault, and this is what brings it back, as the worker's schedule would a little later.
 */
export async function reconcile(drill: Drill): Promise<{ summary: string; failure?: string }> {
  const run = await runProcess(ENTRY.cli, ['reconcile'], drill.env, [], { timeoutMs: RECONCILE_TIMEOUT_MS });
  if (run.code !== 0)
    return { summary: 'failed', failure: `reconcile exited ${run.code}: ${run.output.slice(-500)}` };
  const counts =
    /(\d+) deletions re-applied.* (\d+) missing and (\d+) stale documents rewritten, (\d+) documents ahead .* (\d+) orphaned documents removed/.exec(
      run.output,
    );
  return {
    summary: counts
      ? `${counts[1]} deletions re-applied, ${counts[2]} missing + ${counts[3]} stale + ${counts[4]} ahead rewritten, ${counts[5]} removed`
      : run.output.trim(),
  };
}

export interface DrillLoad {
  sent: DrillSent[];
  enter(phase: Phase): void;
  /** Stops the loops and waits for the requests in flight. */
  finish(): Promise<DrillSent[]>;
}

/** What both drills are given. */
export interface DrillOptions {
  videos: number;
  /** How many of them are deleted during the run, evenly spread over it. */
  deletes: number;
  /** Load before the first fault. */
  beforeMs: number;
  /** Load after (each) return. */
  afterMs: number;
  /** Exact-title searches per second, in all. */
  searchRate: number;
}

/**
 * Deletes the first `deletes` videos evenly over `plannedMs` (kinds in turn: soft with the default
 * retention, soft with retentionDays=0, permanent), while four loops search the exact title of a
 * random seeded video at `searchRate` per second in all.
 */
export function startDrillLoad(drill: Drill, options: DrillOptions, plannedMs: number): DrillLoad {
  const deleteEveryMs = plannedMs / options.deletes;
  const api = drill.system.api;
  const { bearer, ids } = drill;
  const sent: DrillSent[] = [];
  let phase: Phase = 'before';
  let stopped = false;
  const kinds: DeleteKind[] = ['soft', 'soft-now', 'permanent'];
  const note = (request: Promise<Sent>, extra: Partial<DrillSent> = {}) => {
    const sentIn = phase;
    return request.then((result) => {
      sent.push({ ...result, phase: sentIn, donePhase: phase, ...extra });
    });
  };
  let next = 0;
  const deleting = runLoops({
    concurrency: 1,
    ratePerSecond: 1_000 / deleteEveryMs,
    until: () => stopped || next >= options.deletes,
    step: async () => {
      const index = next++;
      const videoId = ids[index]!;
      const deleteKind = kinds[index % kinds.length]!;
      await note(send('delete', 'DELETE', api, `/api/videos/${videoId}${DELETE_QUERY[deleteKind]}`, bearer), {
        videoId,
        deleteKind,
      });
    },
  });
  const searching = runLoops({
    concurrency: 4,
    ratePerSecond: options.searchRate,
    until: () => stopped,
    step: async () => {
      const index = Math.floor(Math.random() * ids.length);
      const q = encodeURIComponent(drillTitle(index));
      await note(send('search', 'GET', api, `/api/videos/search?q=${q}&limit=100`, bearer), {
        videoId: ids[index],
      });
    },
  });
  return {
    sent,
    enter(next) {
      phase = next;
    },
    async finish() {
      stopped = true;
      await Promise.all([deleting, searching]);
      return sent;
    },
  };
}

/** Ids of the items a search answer lists. */
export function itemIds(sent: Sent): string[] {
  const body = sent.body as { items?: { id: string }[] } | null;
  return body?.items?.map((item) => item.id) ?? [];
}

/**
 * Searches that showed a video whose DELETE had already been answered 200 when the search was
 * sent: the one thing docs/contract.md §7 forbids whatever state the index is in.
 */
export function deletedShown(sent: DrillSent[]): DrillSent[] {
  const deletedAt = new Map<string, number>();
  for (const s of sent) if (s.kind === 'delete' && s.status === 200) deletedAt.set(s.videoId!, s.doneAt);
  return sent.filter(
    (s) =>
      s.kind === 'search' &&
      s.status === 200 &&
      itemIds(s).some((id) => (deletedAt.get(id) ?? Infinity) < s.sentAt),
  );
}

/**
 * Answered searches for the title of a video no one asked to delete that do not list it: a search
 * that answers 200 must also find what it should.
 */
export function untouchedMissed(sent: DrillSent[]): DrillSent[] {
  const asked = new Set(sent.filter((s) => s.kind === 'delete').map((s) => s.videoId!));
  return sent.filter(
    (s) =>
      s.kind === 'search' && s.status === 200 && !asked.has(s.videoId!) && !itemIds(s).includes(s.videoId!),
  );
}

/** Searches for the exact title of every deleted video: none may come back. Returns the violations. */
export async function probeDeleted(
  api: string,
  bearer: string,
  ids: string[],
  deleted: Set<string>,
): Promise<{ probes: number; failures: string[] }> {
  const failures: string[] = [];
  const targets = ids.map((id, index) => ({ id, index })).filter(({ id }) => deleted.has(id));
  for (let i = 0; i < targets.length; i += 8) {
    await Promise.all(
      targets.slice(i, i + 8).map(async ({ id, index }) => {
        const q = encodeURIComponent(drillTitle(index));
        const answer = await send('probe', 'GET', api, `/api/videos/search?q=${q}&limit=100`, bearer);
        if (answer.status !== 200) failures.push(`probe for ${id} answered ${answer.status}`);
        else if (itemIds(answer).includes(id)) failures.push(`deleted video ${id} shown by a search`);
      }),
    );
  }
  return { probes: targets.length, failures };
}

/** Where a video may end up: nothing in between. */
type Whole = 'untouched' | 'soft_deleted' | 'purged';
const WHOLE_FOR: Record<DeleteKind, Whole> = {
  soft: 'soft_deleted',
  'soft-now': 'purged',
  permanent: 'purged',
};

/**
 * Every video is in a whole state: untouched (active row, its objects, an active document), soft
 * deleted (row and objects kept, document says so) or purged (no row, objects or document, one
 * audit record). A DELETE answered 200 must have reached its state; one that failed may have
 * reached it or left the video untouched.
 */
export async function wholeStateViolations(
  context: TestContext,
  ids: string[],
  sent: DrillSent[],
): Promise<{ counts: Record<Whole, number>; violations: string[] }> {
  const requested = new Map<string, { kind: DeleteKind; answered: boolean }>();
  for (const s of sent) {
    if (s.kind !== 'delete') continue;
    requested.set(s.videoId!, { kind: s.deleteKind!, answered: s.status === 200 });
  }
  const counts: Record<Whole, number> = { untouched: 0, soft_deleted: 0, purged: 0 };
  const violations: string[] = [];
  await context.indexAdmin.refresh();
  for (let i = 0; i < ids.length; i += 20) {
    await Promise.all(
      ids.slice(i, i + 20).map(async (id) => {
        const left = await remains(context, id);
        let whole: Whole | undefined;
        if (
          left.row?.state === 'active' &&
          left.objects === OBJECTS_PER_VIDEO &&
          left.document?.state === 'active' &&
          left.audits.length === 0
        )
          whole = 'untouched';
        else if (
          left.row?.state === 'soft_deleted' &&
          left.objects === OBJECTS_PER_VIDEO &&
          left.document?.state === 'soft_deleted' &&
          left.audits.length === 0
        )
          whole = 'soft_deleted';
        else if (!left.row && left.objects === 0 && !left.document && left.audits.length === 1)
          whole = 'purged';
        const asked = requested.get(id);
        const allowed: Whole[] = !asked
          ? ['untouched']
          : asked.answered
            ? [WHOLE_FOR[asked.kind]]
            : ['untouched', WHOLE_FOR[asked.kind]];
        if (whole) counts[whole] += 1;
        if (!whole || !allowed.includes(whole)) {
          violations.push(
            `${id} (${asked ? `${asked.kind} delete, ${asked.answered ? 'answered 200' : 'not answered 200'}` : 'not deleted'}): ` +
              `row ${left.row?.state ?? 'none'}, ${left.objects} objects, document ${left.document?.state ?? 'none'}, ` +
              `${left.audits.length} audit records`,
          );
        }
      }),
    );
  }
  return { counts, violations };
}

/** How far the index is from MySQL: documents missing, older than their row, or without a row. */
export async function indexDrift(
  context: TestContext,
): Promise<{ missing: number; stale: number; ahead: number; orphaned: number; total: number }> {
  await context.indexAdmin.refresh();
  const rows: { id: string; version: number }[] = await context.dataSource.query(
    'SELECT id, version FROM videos',
  );
  const documents = new Map<string, number>();
  for await (const batch of context.indexInventory.documentVersionBatches()) {
    for (const [id, version] of batch) documents.set(id, version);
  }
  let missing = 0;
  let stale = 0;
  let ahead = 0;
  for (const row of rows) {
    const version = documents.get(row.id);
    if (version === undefined) missing += 1;
    else if (version < Number(row.version)) stale += 1;
    else if (version > Number(row.version)) ahead += 1;
    documents.delete(row.id);
  }
  const orphaned = documents.size;
  return { missing, stale, ahead, orphaned, total: missing + stale + ahead + orphaned };
}

/**
 * What both drills forbid whatever the fault: a deleted video shown, a video never deleted missed
 * by a search for its title, a failed reconcile, a video left half deleted.
 */
export function drillViolations(
  sent: DrillSent[],
  shown: DrillSent[],
  repair: { failure?: string },
  whole: { violations: string[] },
): string[] {
  return [
    ...shown.map((s) => `deleted video shown: ${explain(s)}`),
    ...untouchedMissed(sent).map((s) => `search missed a video that was never deleted: ${explain(s)}`),
    ...(repair.failure ? [repair.failure] : []),
    ...whole.violations,
  ];
}

/**
 * After a drill's load: waits for the purges the deletes asked for, measures the index against
 * MySQL, repairs it as an operator would (`cli reconcile`) and measures again, searches for every
 * deleted video's title, and checks that every video is in a whole state. `violations` holds what
 * every drill forbids, whatever its fault.
 */
export async function settleAndCheck(
  drill: Drill,
  sent: DrillSent[],
  timeoutMs: number,
  /** Deletes whose proper 503 the drill allows (one a draining API answered); any other must be 200. */
  mayBeUnavailable: (s: DrillSent) => boolean = () => false,
) {
  const { context } = drill;
  const { deletes, late } = await settleDeletions(context, sent, timeoutMs);
  const driftBefore = await indexDrift(context);
  const repair = await reconcile(drill);
  const driftAfter = await indexDrift(context);
  const deleted = new Set(deletes.filter((s) => s.status === 200).map((s) => s.videoId!));
  const probes = await probeDeleted(drill.system.api, drill.bearer, drill.ids, deleted);
  const whole = await wholeStateViolations(context, drill.ids, sent);
  const shown = deletedShown(sent);
  const violations = [
    ...late,
    ...deletes
      .filter((s) => s.status !== 200 && !(isProperUnavailable(s) && mayBeUnavailable(s)))
      .map((s) => `delete not 200: ${explain(s)}`),
    ...probes.failures,
    ...(driftAfter.total === 0
      ? []
      : [`index still differs from MySQL after reconcile: ${JSON.stringify(driftAfter)}`]),
    ...drillViolations(sent, shown, repair, whole),
  ];
  return { deletes, driftBefore, driftAfter, repair, probes, whole, shown, violations };
}

/** The requests of a phase (sent and answered in it) of one kind. */
export function during(sent: DrillSent[], phase: Phase, kind?: string): DrillSent[] {
  return sent.filter((s) => s.phase === phase && s.donePhase === phase && (!kind || s.kind === kind));
}

/** Every answer that is neither a 200 nor a proper 503 (problem+json with Retry-After). */
export function improperAnswers(sent: DrillSent[]): DrillSent[] {
  return sent.filter((s) => s.status !== 200 && !isProperUnavailable(s));
}

export function explain(s: Sent): string {
  return `${s.method} ${s.path} → ${s.status} ${typeof s.body === 'string' ? s.body : JSON.stringify(s.body)}`.slice(
    0,
    300,
  );
}
