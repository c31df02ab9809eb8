import { randomUUID } from 'node:crypto';
import { recordedEvent } from '@app/shared/events/events';
import { endpointOf } from '@app/shared/net/receiver-url';
import { OutboxRetentionRepository } from '@app/shared/events/outbox-retention.repository';
import { OutboxRetentionService } from '@app/shared/events/outbox-retention.service';
import { emptyOutbox, fillOutbox } from './lib/bench-data';
import { count, ms, rate, under } from './lib/figures';
import { sleep, type BenchContext } from './lib/kit';
import type { Step } from './lib/step';
import { callsUntil, summarize, type RunStats } from './lib/stats';

/** Latencies of one kind of call, with the worst one. */
type Latencies = RunStats & { maxMs: number };

export interface OutboxPruneBench {
  /** Delivered events filled, each with one delivery. */
  events: number;
  fillSeconds: number;
  /** Rows deleted (events and deliveries) and how fast, over every run until the prune was complete. */
  removed: number;
  seconds: number;
  perSecond: number;
  runs: number;
  /** Each call into MySQL the prune made: one statement, or the short transaction that deletes events. */
  statements: Latencies;
  /** Events recorded meanwhile (one event and its delivery per transaction, as a change records them). */
  writer: Latencies;
  /** The webhook sweep's query for due deliveries, meanwhile. */
  reader: Latencies;
  /** The same writer and reader for BASELINE_MS before the prune: what the machine gives them without it. */
  baseline: { writer: Latencies; reader: Latencies };
  /** InnoDB row lock waits during the prune, server-wide (other databases on the server included). */
  rowLockWaits: number;
}

const RECEIVER = endpointOf('http://receiver.bench/hooks');
const DAY_MS = 86_400_000;
const BASELINE_MS = 20_000;

const withMax = (latencies: number[], seconds: number) => ({
  ...summarize(latencies, seconds),
  maxMs: Math.max(0, ...latencies),
});

/** `events` delivered events and their deliveries, delivered a day past the retention. */
function fill(context: BenchContext, events: number, retentionDays: number): Promise<void> {
  const base = new Date(Date.now() - (retentionDays + 2) * DAY_MS);
  return fillOutbox(
    context.dataSource,
    events,
    {
      select: `UUID(), 'video.purged', CONCAT('bench-video-', s.seq), CONCAT('bench-author-', s.seq MOD 5000),
         CONCAT('{"type":"video.purged","timestamp":"2026-01-01T00:00:00.000Z","data":{"videoId":"bench-video-', s.seq,
           '","authorId":"bench-author-', s.seq MOD 5000, '","reason":"permanent","requestedBy":"bench-author-',
           s.seq MOD 5000, '","deletedAt":null,"purgedAt":"2026-01-01T00:00:00.000Z","objectsRemoved":2}}'),
         ? + INTERVAL s.seq * 50 MICROSECOND`,
      params: [base],
    },
    () => ({
      columns:
        'event_id, endpoint, endpoint_key, subject, state, attempts, next_attempt_at, last_attempt_at, delivered_at',
      select: `o.id, ?, ?, o.subject, 'delivered', 1, o.occurred_at, o.occurred_at + INTERVAL 1 SECOND,
         o.occurred_at + INTERVAL 1 SECOND`,
      params: [RECEIVER.url, RECEIVER.key],
    }),
  );
}

/**
 * Times each call of `target`'s methods into `latencies`, on the instance itself (the one its
 * users hold); the returned function puts the methods back.
 */
function timeCalls(target: object, latencies: number[]): () => void {
  const prototype = Object.getPrototypeOf(target) as Record<string, unknown>;
  const names = Object.getOwnPropertyNames(prototype).filter(
    (name) => name !== 'constructor' && typeof prototype[name] === 'function',
  );
  const timed = target as Record<string, unknown>;
  for (const name of names) {
    const method = prototype[name] as (...args: unknown[]) => Promise<unknown>;
    timed[name] = async (...args: unknown[]) => {
      const t0 = performance.now();
      try {
        return await method.apply(target, args);
      } finally {
        latencies.push(performance.now() - t0);
      }
    };
  }
  return () => {
    for (const name of names) delete timed[name];
  };
}

/**
 * The outbox's retention at scale: `events` delivered events past the retention, pruned run after
 * run (each with the worker's time budget) until nothing is left to prune, while a writer records
 * new events and a reader runs the due-deliveries query. Their worst latencies show whether the
 * prune held locks they waited for.
 */
export const outboxStep: Step<{ outbox: OutboxPruneBench }> = {
  name: 'outbox',
  measures:
    'the outbox prune of delivered events past the retention (1,000,000; --quick 100,000), while events are recorded and due deliveries read',
  baseline: 'the same writer and reader for 20 s before the prune',
  data: 'own',
  async run({ context, quick }) {
    const events = quick ? 100_000 : 1_000_000;
    const retentionDays = context.config.OUTBOX_RETENTION_DAYS;
    const filled = performance.now();
    await fill(context, events, retentionDays);
    const fillSeconds = (performance.now() - filled) / 1000;

    const statementMs: number[] = [];
    const retention = context.get(OutboxRetentionService);
    const record = () => {
      const videoId = randomUUID();
      const event = recordedEvent({
        type: 'video.restored',
        subject: videoId,
        occurredAt: new Date(),
        data: {
          videoId,
          authorId: 'bench-writer',
          requestedBy: 'bench-writer',
          restoredAt: new Date().toISOString(),
        },
      });
      return context.dataSource.transaction((manager) => context.outbox.insert(manager, [event], [RECEIVER]));
    };
    /** The writer and the reader, until `done` settles; their latencies over that time. */
    const load = async (done: Promise<unknown>) => {
      const t0 = performance.now();
      const read = () => context.outbox.sweepWindow(RECEIVER.key, '0', 500, new Date());
      const [writerMs, readerMs] = await Promise.all([
        callsUntil(done, record, { pauseMs: 5 }),
        callsUntil(done, read, { pauseMs: 50 }),
        done,
      ]);
      const seconds = (performance.now() - t0) / 1000;
      return { writer: withMax(writerMs, seconds), reader: withMax(readerMs, seconds) };
    };
    const baseline = await load(sleep(BASELINE_MS));
    const lockWaits = async () => {
      const [row] = await context.dataSource.query<{ Value: string }[]>(
        "SHOW GLOBAL STATUS LIKE 'Innodb_row_lock_waits'",
      );
      return Number(row!.Value);
    };
    const waitsBefore = await lockWaits();

    const started = performance.now();
    let removed = 0;
    let runs = 0;
    // Each statement of the prune, through the repository the context's service holds.
    const untime = timeCalls(context.get(OutboxRetentionRepository), statementMs);
    const during = await load(
      (async () => {
        for (let complete = false; !complete; runs += 1) {
          const result = await retention.prune(new Date());
          removed += result.events + result.deliveries;
          complete = result.complete;
        }
      })(),
    ).finally(untime);
    const seconds = (performance.now() - started) / 1000;
    const rowLockWaits = (await lockWaits()) - waitsBefore;
    const [left] = await context.dataSource.query<{ n: string }[]>(
      "SELECT COUNT(*) AS n FROM outbox_events WHERE author_id <> 'bench-writer'",
    );
    if (Number(left!.n) > 0) throw new Error(`the prune left ${left!.n} of the aged events`);
    if (removed !== 2 * events) throw new Error(`the prune removed ${removed} rows, not ${2 * events}`);
    await emptyOutbox(context.dataSource);
    return {
      outbox: {
        events,
        fillSeconds,
        removed,
        seconds,
        perSecond: removed / seconds,
        runs,
        statements: withMax(statementMs, seconds),
        ...during,
        baseline,
        rowLockWaits,
      },
    };
  },
  report({ outbox }) {
    const worst = (stats: Latencies) =>
      `p50 ${ms(stats.p50)}, p99 ${ms(stats.p99)}, worst ${ms(stats.maxMs)} ms (${count(stats.requests)})`;
    return {
      tables: [
        {
          title: `Outbox prune: ${count(outbox.events)} delivered events and their deliveries past the retention, while events are recorded and due deliveries read`,
          header: ['measure', 'value'],
          rows: [
            ['fill (sequence engine, INSERT … SELECT)', `${outbox.fillSeconds.toFixed(0)} s`],
            [
              'rows removed (events + deliveries)',
              `${count(outbox.removed)} in ${outbox.seconds.toFixed(1)} s: ${rate(outbox.perSecond)} rows/s (${outbox.runs} runs of the sweep)`,
            ],
            ['prune statements (batches of 1,000)', worst(outbox.statements)],
            ['writer: one event and its delivery per transaction', worst(outbox.writer)],
            ['reader: due deliveries (the webhook sweep)', worst(outbox.reader)],
            ['writer, 20 s before the prune (baseline)', worst(outbox.baseline.writer)],
            ['reader, 20 s before the prune (baseline)', worst(outbox.baseline.reader)],
            ['InnoDB row lock waits during the prune (whole server)', count(outbox.rowLockWaits)],
          ],
        },
      ],
      // No long locks: recording an event never waits a second for the prune.
      targets: [
        under('outbox prune: worst latency of a concurrent event write, ms', outbox.writer.maxMs, 1000),
      ],
    };
  },
};
