/**
 * The attacker of "an attacker beside the users", run as a process of its own (Node strips the
 * types): a real attacker is another client, and its traffic handled in the process that times
 * ordinary callers would delay their answers there and count as the API's doing. Given its plan in
 * `ATTACKER_PLAN`, it says `ready`, then attacks and pauses as its standard input tells it
 * (`AttackerCommand`); told to stop, it prints what it was answered as one line of JSON
 * (`AttackerTally`), and exits when its input closes.
 */
import { connect } from 'node:net';
import { createInterface } from 'node:readline';
import { sleep } from '../../../scripts/services/wait.ts';
import { runLoops, send, type Sent } from '../traffic.ts';

export interface AttackerPlan {
  api: string;
  token: string;
  dashboardPath: string;
  /** The `Authorization` header of a wrong dashboard password. */
  dashboardGuess: string;
  /** Requests per second of each kind (worst queries, dashboard guesses, cursor walks). */
  rate: number;
  stalledBodies: number;
  /** How soon a stalled body is announced again on a new socket once the last was refused. */
  stallAgainMs: number;
  queries: string[];
}

export interface AttackerTally {
  /** Answers by kind and status (0: no answer). */
  answers: Record<string, Record<string, number>>;
  /** Up to ten answers that were a 5xx or none at all. */
  failures: string[];
  stalled: { opened: number; refused: number };
}

/**
 * The attacker's loops, each slice of the attack a new set of them (a paced loop resumed after a
 * pause would send what it missed at once), all counting into one tally.
 */
function attacker(plan: AttackerPlan) {
  const tally: AttackerTally = { answers: {}, failures: [], stalled: { opened: 0, refused: 0 } };
  const count = (sent: Pick<Sent, 'kind' | 'status' | 'body'>) => {
    const kind = (tally.answers[sent.kind] ??= {});
    kind[sent.status] = (kind[sent.status] ?? 0) + 1;
    if ((sent.status === 0 || sent.status >= 500) && tally.failures.length < 10)
      tally.failures.push(`${sent.kind} → ${sent.status} ${JSON.stringify(sent.body)}`.slice(0, 300));
  };
  const stall = () =>
    new Promise<void>((done) => {
      const { hostname, port } = new URL(plan.api);
      const socket = connect(Number(port), hostname);
      tally.stalled.opened += 1;
      let answer = '';
      socket.on('error', () => undefined);
      socket.on('data', (chunk) => (answer += chunk.toString('latin1')));
      socket.on('close', () => {
        if (answer.startsWith('HTTP/1.1 413')) tally.stalled.refused += 1;
        done();
      });
      socket.on('connect', () => {
        socket.write(
          'POST /api/videos/trash/restore HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n' +
            'Content-Length: 1048576\r\n\r\n',
        );
        socket.write(Buffer.alloc(64 * 1024, 'x'));
      });
    });
  let worst = 0;
  const slice = (until: () => boolean) =>
    Promise.all([
      runLoops({
        concurrency: 4,
        ratePerSecond: plan.rate,
        until,
        step: async () => {
          const q = plan.queries[worst++ % plan.queries.length]!;
          const path = `/api/videos/search?q=${encodeURIComponent(q)}&limit=100&highlight=true&facets=year,author`;
          count(await send('worst query', 'GET', plan.api, path, plan.token));
        },
      }),
      runLoops({
        concurrency: plan.stalledBodies,
        until,
        step: async () => {
          await stall();
          // Announced again a little later: the refusal closed it.
          await sleep(plan.stallAgainMs);
        },
      }),
      runLoops({
        concurrency: 8,
        ratePerSecond: plan.rate,
        until,
        step: async () => {
          const answer = await fetch(`${plan.api}${plan.dashboardPath}`, {
            headers: { authorization: plan.dashboardGuess },
            signal: AbortSignal.timeout(15_000),
          }).catch((error: unknown) => String(error));
          if (typeof answer === 'string') return count({ kind: 'dashboard guess', status: 0, body: answer });
          count({ kind: 'dashboard guess', status: answer.status, body: null });
          await answer.arrayBuffer();
        },
      }),
      runLoops({
        concurrency: 2,
        ratePerSecond: plan.rate,
        until,
        step: async () => {
          // A walk opened and abandoned after its first cursor page.
          const first = await send(
            'cursor flood',
            'GET',
            plan.api,
            '/api/videos/search?q=talk&limit=1',
            plan.token,
          );
          count(first);
          const cursor = (first.body as { nextCursor?: string } | null)?.nextCursor;
          if (!cursor) return;
          const next = `/api/videos/search?q=talk&limit=1&cursor=${encodeURIComponent(cursor)}`;
          count(await send('cursor flood', 'GET', plan.api, next, plan.token));
        },
      }),
    ]);
  return { tally, slice };
}

/** What the process is told on its standard input, one word a line. */
export type AttackerCommand = 'attack' | 'pause' | 'stop';

if (process.env.ATTACKER_PLAN) {
  const { tally, slice } = attacker(JSON.parse(process.env.ATTACKER_PLAN) as AttackerPlan);
  const slices: Promise<unknown>[] = [];
  let current = 0;
  createInterface({ input: process.stdin }).on('line', (line) => {
    const command = line.trim() as AttackerCommand;
    // Each command ends the slice under way; its loops finish the step they are in.
    const mine = ++current;
    if (command === 'attack') slices.push(slice(() => current !== mine));
    if (command === 'stop')
      void Promise.all(slices).then(() => process.stdout.write(`${JSON.stringify(tally)}\n`));
  });
  process.stdout.write('ready\n');
}
