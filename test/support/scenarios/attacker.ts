import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { withTimeout } from '../../../libs/shared/src/util/with-timeout.ts';
import { DASHBOARD_PATH } from '@app/api/admin/dashboard-path';
import { openSession } from '../../../bench/lib/cpu-profile';
import { freePort, rssKb, sleep, waitFor } from '../processes';
import { startOwnRedis } from '../redis-server';
import { seedVideos } from '../seed';
import { startSystem, token, type System } from '../system';
import { openTestContext, type TestContext } from '../test-context';
import { runLoops, send, tally, type Sent } from '../traffic';
import type { AttackerCommand, AttackerPlan, AttackerTally } from './attacker-process';
import type { ScenarioReport } from './report';

export interface AttackerOptions {
  /** Length of each phase: ordinary callers alone, then beside the attacker. */
  phaseMs: number;
  /** How many times the two phases alternate. */
  rounds: number;
  /** Ordinary searches per second (open loop), by many callers. */
  searchesPerSecond: number;
  /** Ordinary soft deletes per second, each of its author's own video. */
  deletesPerSecond: number;
  /** Unauthenticated sockets the attacker keeps announcing 1 MiB bodies on. */
  stalledBodies: number;
  /** Requests per second of each of the attacker's other kinds (worst queries, dashboard guesses, cursor walks). */
  attackerRate: number;
  /** The most ordinary p99 may grow beside the attacker (1.5: 50 % more). Checked only when given (the chaos row). */
  maxP99Ratio?: number;
}

const MEMORY_BOUND_MB = 50;
/** How soon the attacker announces a stalled body again on a new socket once the last was refused. */
const STALL_AGAIN_MS = 5_000;
const WORDS = [
  'python',
  'data',
  'async',
  'testing',
  'web',
  'science',
  'talk',
  'packaging',
  'types',
  'django',
];
const ADMIN = { username: 'admin', password: 'attacker-scenario-password' };

/** The worst `q`s one caller can send: characters that fold into many words, long runs, many short words. */
const WORST_QUERIES = [
  '\uFDFA'.repeat(256),
  '\uFDFB'.repeat(256),
  Array.from({ length: 128 }, (_, i) => String.fromCharCode(97 + (i % 26))).join(' '),
  'pythn '.repeat(42).trim(),
  '\u3300'.repeat(256),
];

const mb = (bytes: number) => (bytes / 2 ** 20).toFixed(0);

/**
 * What the API holds: its live heap, in bytes, once a full collection (asked through its inspector)
 * has dropped what nothing references. RSS is no measure of it: the allocators keep the pages a burst
 * made them take, and garbage waits for the next collection.
 */
async function liveHeap(inspectorPort: number): Promise<number> {
  const session = await openSession(inspectorPort);
  try {
    await session.send('HeapProfiler.collectGarbage');
    return (await session.send<{ usedSize: number }>('Runtime.getHeapUsage')).usedSize;
  } finally {
    session.close();
  }
}

interface Attacker {
  attack(): void;
  pause(): void;
  /** Ends the attack and answers what the attacker was answered. */
  stop(): Promise<AttackerTally>;
  kill(): void;
}

/**
 * The attacker in a process of its own (attacker-process.ts), started and loaded before anything
 * is measured, then told when to attack and when to pause.
 */
async function startAttacker(plan: AttackerPlan): Promise<Attacker> {
  // At the lowest CPU priority: an attacker's own work is done on its machine, not the system's;
  // here it shares the cores, and may only have what the system leaves idle.
  const child = spawn(
    'nice',
    [
      '-n',
      '19',
      process.execPath,
      '--disable-warning=MODULE_TYPELESS_PACKAGE_JSON',
      join(__dirname, 'attacker-process.ts'),
    ],
    { env: { ...process.env, ATTACKER_PLAN: JSON.stringify(plan) }, stdio: ['pipe', 'pipe', 'inherit'] },
  );
  const lines: string[] = [];
  createInterface({ input: child.stdout }).on('line', (line) => lines.push(line));
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  await waitFor('the attacker process to be ready', () =>
    Promise.resolve(lines.includes('ready') ? true : undefined),
  );
  const tell = (command: AttackerCommand) => child.stdin.write(`${command}\n`);
  return {
    attack: () => tell('attack'),
    pause: () => tell('pause'),
    async stop() {
      tell('stop');
      child.stdin.end();
      const code = await withTimeout(exited, 60_000, 'the attacker process to end');
      if (code !== 0) throw new Error(`the attacker process ended with ${code}: ${lines.join('\n')}`);
      return JSON.parse(lines.at(-1)!) as AttackerTally;
    },
    kill: () => child.kill('SIGKILL'),
  };
}

const p99 = (sents: Sent[]) => {
  const times = sents.map((s) => s.doneAt - s.sentAt).sort((a, b) => a - b);
  return times[Math.min(times.length - 1, Math.floor(0.99 * times.length))] ?? NaN;
};

/**
 * "An attacker beside the users" (docs/reliability.md): ordinary callers search and soft-delete at a
 * steady rate, first alone, then while one caller sends the worst queries it can, keeps hundreds
 * of unauthenticated sockets announcing large bodies, guesses dashboard passwords in bursts and
 * floods cursor walks. Ordinary callers must all be answered as before (p99 within `maxP99Ratio`
 * of the first phase, when given), the API's memory grow by less than 50 MB, and every delete
 * they were answered for hold in MySQL.
 */
export async function attackerBesideUsers(options: AttackerOptions): Promise<ScenarioReport> {
  // A Redis of its own: the attacker's spent limits (rate, dashboard guesses) must not outlive the run.
  const redis = await startOwnRedis();
  const env = {
    REDIS_URL: redis.url,
    // The defaults a deployment runs with: the attacker is one caller, limited like any other.
    RATE_LIMIT_POINTS: '600',
    RATE_LIMIT_WINDOW_SECONDS: '60',
    ADMIN_USERNAME: ADMIN.username,
    ADMIN_PASSWORD: ADMIN.password,
  };
  const context: TestContext = await openTestContext(env).catch(async (error: unknown) => {
    await redis.stop();
    throw error;
  });
  let system: System | undefined;
  let attacker: Attacker | undefined;
  try {
    await context.reset();
    const videos = options.deletesPerSecond * ((options.phaseMs / 1000) * 2 * options.rounds + 5) + 10;
    const authors = 20;
    const ids: string[][] = [];
    for (let a = 0; a < authors; a += 1) {
      ids.push(
        await seedVideos(context, Math.ceil(videos / authors), {
          authorId: `user-${a}`,
          objectsPerVideo: 0,
          title: (n) => `${WORDS[n % WORDS.length]} ${WORDS[(n + a) % WORDS.length]} talk ${a}-${n}`,
        }),
      );
    }
    // Its inspector, on loopback, lets the scenario ask for a full collection before weighing the heap.
    const inspectorPort = await freePort();
    system = await startSystem(
      { ...env, NODE_OPTIONS: `--inspect=127.0.0.1:${inspectorPort}` },
      { worker: false },
    );
    const api = system.api;
    const pid = system.processes[0]!.child.pid!;

    let stopped = false;
    const rss: number[] = [];
    const sampling = (async () => {
      while (!stopped) {
        rss.push(rssKb(pid));
        await sleep(200);
      }
    })();

    let deleteTurn = 0;
    const deleted: string[] = [];
    const ordinary = async (phaseMs: number): Promise<Sent[]> => {
      const sent: Sent[] = [];
      const until = Date.now() + phaseMs;
      let n = 0;
      await Promise.all([
        runLoops({
          concurrency: 16,
          ratePerSecond: options.searchesPerSecond,
          until: () => Date.now() >= until,
          step: async () => {
            n += 1;
            const q = `${WORDS[n % WORDS.length]} ${WORDS[(n * 7) % WORDS.length]}`;
            sent.push(
              await send(
                'search',
                'GET',
                api,
                `/api/videos/search?q=${encodeURIComponent(q)}`,
                token(`reader-${n % 200}`),
              ),
            );
          },
        }),
        runLoops({
          concurrency: 4,
          ratePerSecond: options.deletesPerSecond,
          until: () => Date.now() >= until,
          step: async () => {
            const turn = deleteTurn++;
            const author = turn % authors;
            const id = ids[author]![Math.floor(turn / authors)];
            if (!id) return;
            const answer = await send('delete', 'DELETE', api, `/api/videos/${id}`, token(`user-${author}`));
            sent.push(answer);
            if (answer.status === 200) deleted.push(id);
          },
        }),
      ]);
      return sent;
    };

    // The attacker: one token, one address, everything at once whenever it attacks.
    attacker = await startAttacker({
      api,
      token: token(`attacker-${Date.now()}`),
      dashboardPath: DASHBOARD_PATH,
      dashboardGuess: `Basic ${Buffer.from(`${ADMIN.username}:wrong-guess`).toString('base64')}`,
      rate: options.attackerRate,
      stalledBodies: options.stalledBodies,
      stallAgainMs: STALL_AGAIN_MS,
      queries: WORST_QUERIES,
    });

    // Warm, then measured: the first requests of a process pay for compiling its code.
    await ordinary(Math.min(5_000, options.phaseMs));
    deleted.length = 0;
    // The phases alternate, so what drifts over a run (the engine's merges, the machine's other
    // work) falls on both sides alike.
    const alone: Sent[] = [];
    const beside: Sent[] = [];
    let heldAlone = 0;
    let rssAlone = 0;
    let phaseStart = 0;
    for (let round = 0; round < options.rounds; round += 1) {
      alone.push(...(await ordinary(options.phaseMs)));
      if (round === 0) {
        rssAlone = Math.max(...rss);
        heldAlone = await liveHeap(inspectorPort);
        phaseStart = rss.length;
      }
      attacker.attack();
      beside.push(...(await ordinary(options.phaseMs)));
      attacker.pause();
    }
    const attacked = await attacker.stop();
    attacker = undefined;
    const attackEnd = rss.length;
    const heldAfter = await liveHeap(inspectorPort);
    stopped = true;
    await sampling;

    const rssPeak = Math.max(...rss.slice(phaseStart, attackEnd));
    const rssLeft = Math.max(...rss.slice(-3));
    const growthMb = (heldAfter - heldAlone) / 2 ** 20;
    const rows: { id: string; state: string }[] = deleted.length
      ? await context.dataSource.query('SELECT id, state FROM videos WHERE id IN (?)', [deleted])
      : [];
    const notHeld = deleted.filter((id) => rows.find((row) => row.id === id)?.state !== 'soft_deleted');
    const ratio = p99(beside) / p99(alone);
    const failed = [...alone, ...beside].filter((s) => s.status !== 200);
    const violations = [
      ...failed
        .slice(0, 10)
        .map((s) => `ordinary ${s.kind} ${s.path} → ${s.status} ${JSON.stringify(s.body)}`.slice(0, 300)),
      ...attacked.failures.map((failure) => `attacker's ${failure}`),
      ...(growthMb < MEMORY_BOUND_MB ? [] : [`the attack left the API ${growthMb.toFixed(0)} MB larger`]),
      ...(notHeld.length === 0 ? [] : [`${notHeld.length} answered soft deletes not in MySQL`]),
      ...(attacked.stalled.refused > 0 ? [] : ['no stalled body was refused']),
      ...(options.maxP99Ratio === undefined || ratio <= options.maxP99Ratio
        ? []
        : [
            `ordinary p99 beside the attacker ${ratio.toFixed(2)}× the p99 without (bound ${options.maxP99Ratio})`,
          ]),
    ];
    const kinds = (kind: string) =>
      Object.entries(attacked.answers[kind] ?? {})
        .map(([status, n]) => `${status === '0' ? 'no answer' : status}×${n}`)
        .join(', ') || 'none';
    return {
      load:
        `${options.rounds} rounds of two phases of ${options.phaseMs / 1000} s each: ordinary callers (200 readers, ${authors} authors) searching at ` +
        `${options.searchesPerSecond}/s and soft-deleting their own videos at ${options.deletesPerSecond}/s, alone, then beside the attacker (its process started and loaded before the first)`,
      faults:
        `one attacker (one token, one address, default rate limit; its process at the lowest CPU priority, standing for another machine), ${options.attackerRate}/s of each: worst-case queries (U+FDFA ×256 and others, limit 100, highlights, facets), ` +
        `dashboard password guesses, cursor walks opened and abandoned; and ${options.stalledBodies} unauthenticated sockets announcing 1 MiB bodies, each announced again ${STALL_AGAIN_MS / 1000} s after its refusal`,
      expected:
        `every ordinary request answered 200${options.maxP99Ratio === undefined ? '' : `, ordinary p99 at most ${options.maxP99Ratio}× that of the first phase`}; ` +
        `the attack leaves the API holding less than ${MEMORY_BOUND_MB} MB more (its live heap after a full collection, after each phase); every answered soft delete held in MySQL; no 5xx or dropped connection for the attacker either`,
      observed:
        `ordinary: alone ${tally(alone)} (p99 ${p99(alone)} ms), beside ${tally(beside)} (p99 ${p99(beside)} ms; ×${ratio.toFixed(2)}); ` +
        `attacker: worst queries ${kinds('worst query')}, dashboard guesses ${kinds('dashboard guess')}, cursor flood ${kinds('cursor flood')}, ` +
        `stalled bodies ${attacked.stalled.opened} opened, ${attacked.stalled.refused} refused 413; API live heap ${mb(heldAlone)} MB after the first phase, ${mb(heldAfter)} MB after the attack; ` +
        `RSS peak ${(rssAlone / 1024).toFixed(0)} MB alone, ${(rssPeak / 1024).toFixed(0)} MB beside the attacker, ${(rssLeft / 1024).toFixed(0)} MB after it (the allocators keep what the attack's rate made them grow); ` +
        `${deleted.length} soft deletes, ${notHeld.length} not held`,
      violations,
    };
  } finally {
    attacker?.kill();
    await system?.stop();
    await context.close();
    await redis.stop();
  }
}
