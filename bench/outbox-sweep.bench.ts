import { DataSource, type DataSourceOptions } from 'typeorm';
import { dataSourceOptions } from '@app/shared/data-source';
import { endpointOf } from '@app/shared/net/receiver-url';
import { SWEEP_WINDOW_SQL } from '@app/shared/events/outbox.repository';
import { SWEEP_WINDOW, WebhookDeliveryService } from '@app/shared/events/webhook-delivery.service';
import { JobQueues } from '@app/shared/queue/job-queues.service';
import { emptyOutbox, fillOutbox } from './lib/bench-data';
import { atMost, count, ms } from './lib/figures';
import { openContext } from './lib/kit';
import type { Step } from './lib/step';
import { percentile } from './lib/stats';

/** One way of finding due deliveries, measured over a number of passes at one backlog. */
export interface SweepPasses {
  passes: number;
  p50Ms: number;
  maxMs: number;
  /** Rows InnoDB read per pass (the session's Handler_read_* counters), on average. */
  rowsRead: number;
  /** Deliveries the pass found to send, on average. */
  found: number;
}

export interface OutboxSweepBench {
  backlogs: {
    backlog: number;
    fillSeconds: number;
    /** The sweep as it is: a window of SWEEP_WINDOW per receiver (`WebhookDeliveryService.sweep`). */
    window: SweepPasses;
    /** The query every pass made before: every due row, its order checked, sorted, the first 500 taken. */
    before: SweepPasses;
  }[];
  /** EXPLAIN of the window's query at the largest backlog: one line per table access. */
  explain: string[];
}

const DOWN = endpointOf('http://receiver-down.bench/hooks');
const HEALTHY = endpointOf('http://receiver-healthy.bench/hooks');
/** Events per video in the backlog: each video's first is retried, the others wait for it. */
const EVENTS_PER_VIDEO = 5;
/** Deliveries to the healthy receiver waiting beside the backlog (recorded a moment ago). */
const HEALTHY_PENDING = 20;

/** The previous sweep's query (`dueHeads`), kept here as the baseline. */
const BEFORE_SQL = `SELECT d.id, d.attempts FROM webhook_deliveries d
  WHERE d.state = 'pending' AND d.next_attempt_at <= ? AND NOT EXISTS (
    SELECT 1 FROM webhook_deliveries e
    WHERE e.endpoint_key = d.endpoint_key AND e.subject = d.subject AND e.id < d.id AND e.state <> 'delivered')
  ORDER BY d.id LIMIT ?`;

/**
 * A receiver down for hours: `backlog` undelivered events to it, five per video, all past their
 * time: each video's first has failed and waits for its retry (one in fifty's retry time has come),
 * the others wait for it. Beside them a few for a healthy receiver. Written by MariaDB's sequence engine.
 */
async function fill(dataSource: DataSource, backlog: number): Promise<void> {
  await fillOutbox(
    dataSource,
    backlog + HEALTHY_PENDING,
    {
      select: `UUID(), 'video.soft_deleted', CONCAT('bench-video-', (s.seq - 1) DIV ${EVENTS_PER_VIDEO}), 'bench-author',
         '{"type":"video.soft_deleted"}', NOW(3) - INTERVAL 2 HOUR + INTERVAL s.seq MICROSECOND`,
    },
    // The last HEALTHY_PENDING events go to the healthy receiver, the others to the one that is down.
    (last) => ({
      columns: 'event_id, endpoint, endpoint_key, subject, state, attempts, next_attempt_at',
      select: `o.id, IF(o.seq > ?, ?, ?), IF(o.seq > ?, ?, ?), o.subject, 'pending', 0, o.occurred_at`,
      params: [last - HEALTHY_PENDING, HEALTHY.url, DOWN.url, last - HEALTHY_PENDING, HEALTHY.key, DOWN.key],
    }),
  );
  // Each video's first delivery (ids follow the events: every fifth from the first) has failed.
  await dataSource.query(
    `UPDATE webhook_deliveries SET attempts = 6, first_failed_at = NOW(3) - INTERVAL 1 HOUR,
       next_attempt_at = IF(id % ${EVENTS_PER_VIDEO * 50} = 1, NOW(3) - INTERVAL 1 SECOND, NOW(3) + INTERVAL 1 HOUR)
     WHERE endpoint_key = ? AND id % ${EVENTS_PER_VIDEO} = 1`,
    [DOWN.key],
  );
  await dataSource.query('ANALYZE TABLE webhook_deliveries');
}

/** Rows the session's handler has read so far. */
async function rowsRead(dataSource: DataSource): Promise<number> {
  const rows = await dataSource.query<{ Variable_name: string; Value: string }[]>(
    "SHOW SESSION STATUS LIKE 'Handler_read%'",
  );
  return rows.reduce((sum, row) => sum + Number(row.Value), 0);
}

/** Times `pass` `passes` times on the one connection of `dataSource`, counting the rows each read. */
async function measure(
  dataSource: DataSource,
  passes: number,
  pass: () => Promise<number>,
): Promise<SweepPasses> {
  // What reading the counters itself reads, taken off every pass.
  const a = await rowsRead(dataSource);
  const counting = (await rowsRead(dataSource)) - a;
  const times: number[] = [];
  let read = 0;
  let found = 0;
  await pass(); // warm-up: the buffer pool, the statement cache
  for (let n = 0; n < passes; n += 1) {
    const before = await rowsRead(dataSource);
    const t0 = performance.now();
    found += await pass();
    times.push(performance.now() - t0);
    read += (await rowsRead(dataSource)) - before - counting;
  }
  times.sort((x, y) => x - y);
  return {
    passes,
    p50Ms: percentile(times, 50),
    maxMs: times.at(-1)!,
    rowsRead: read / passes,
    found: found / passes,
  };
}

/** Undelivered events to a receiver that is down: a small and a large backlog. */
const BACKLOGS = [100, 100_000];

/**
 * The webhook sweep's cost per pass at a small and a large backlog of due deliveries to a receiver
 * that is down, for the sweep as it is (bounded windows through `idx_webhook_deliveries_receiver`)
 * and for the query it replaced. The database is the bench's; one connection, so the session's
 * counters are the pass's. The queue is a stub that counts: Redis is not what is measured.
 */
export const outboxSweepStep: Step<{
  outboxSweep: OutboxSweepBench;
  outboxSweepRatios: { windowMs: number; windowRows: number; beforeMs: number; beforeRows: number };
}> = {
  name: 'outbox-sweep',
  measures:
    'a pass of the webhook sweep (windows of 500 per receiver) at 100 and 100,000 due deliveries to a receiver that is down',
  baseline: 'the query the sweep made before (every due row, sorted, the first 500), at the same backlogs',
  data: 'own',
  async run({ config, quick }) {
    const passes = quick ? 20 : 60;
    let enqueued = 0;
    const queues = {
      ensureDeliveryJob: () => {
        enqueued += 1;
        return Promise.resolve();
      },
    };
    /**
     * The worker's services on one connection (so the session's counters are the pass's) and a queue
     * stub that counts; a fresh context per backlog, so the sweep's windows start from the first delivery.
     */
    const openSweepContext = () =>
      openContext(
        {
          ...config,
          WEBHOOK_URLS: [],
          WEBHOOK_SECRET: `whsec_${Buffer.alloc(32, 7).toString('base64')}`,
          WEBHOOK_RETRY_BASE_MS: 5_000,
          WEBHOOK_RETRY_MAX_MS: 7_200_000,
          WEBHOOK_RETRY_WINDOW_MS: 259_200_000,
        },
        [
          { provide: JobQueues, useFactory: () => queues },
          {
            provide: DataSource,
            useFactory: () =>
              new DataSource({ ...dataSourceOptions(config), poolSize: 1 } as DataSourceOptions).initialize(),
          },
        ],
      );
    const results: OutboxSweepBench['backlogs'] = [];
    let explain: string[] = [];
    for (const backlog of BACKLOGS) {
      const context = await openSweepContext();
      try {
        const { dataSource } = context;
        const service = context.get(WebhookDeliveryService);
        const filled = performance.now();
        await fill(dataSource, backlog);
        const fillSeconds = (performance.now() - filled) / 1000;
        const window = await measure(dataSource, passes, async () => {
          enqueued = 0;
          await service.sweep();
          return enqueued;
        });
        const before = await measure(
          dataSource,
          Math.max(3, Math.round(passes / 4)),
          async () => (await dataSource.query<unknown[]>(BEFORE_SQL, [new Date(), SWEEP_WINDOW])).length,
        );
        results.push({ backlog, fillSeconds, window, before });
        const plan = await dataSource.query<Record<string, string | number | null>[]>(
          `EXPLAIN ${SWEEP_WINDOW_SQL}`,
          [new Date(), DOWN.key, '0', SWEEP_WINDOW],
        );
        explain = plan.map(
          (row) =>
            `${String(row.select_type)} ${String(row.table)}: type ${String(row.type)}, key ${String(row.key)}, rows ${String(row.rows)}${row.Extra ? `, ${String(row.Extra)}` : ''}`,
        );
        if (backlog === BACKLOGS.at(-1)) await emptyOutbox(dataSource);
      } finally {
        await context.close();
      }
    }
    const sweep = { backlogs: results, explain };
    const small = sweep.backlogs[0]!;
    const large = sweep.backlogs.at(-1)!;
    return {
      outboxSweep: sweep,
      outboxSweepRatios: {
        windowMs: large.window.p50Ms / small.window.p50Ms,
        windowRows: large.window.rowsRead / small.window.rowsRead,
        beforeMs: large.before.p50Ms / small.before.p50Ms,
        beforeRows: large.before.rowsRead / small.before.rowsRead,
      },
    };
  },
  report({ outboxSweep: sweep, outboxSweepRatios: ratios }) {
    const passes = (p: SweepPasses) => [
      ms(p.p50Ms),
      ms(p.maxMs),
      count(Math.round(p.rowsRead)),
      count(Math.round(p.found)),
      p.passes,
    ];
    const [small, large] = [sweep.backlogs[0]!, sweep.backlogs.at(-1)!];
    return {
      tables: [
        {
          title: `Webhook sweep, one pass, at each backlog of due deliveries to a receiver that is down (5 events per video; ${count(HEALTHY_PENDING)} pending for a healthy receiver beside them; one MySQL connection; rows read = the session's Handler_read_* counters)`,
          header: ['backlog', 'sweep', 'p50 ms', 'max ms', 'rows read', 'found to send', 'passes'],
          rows: sweep.backlogs.flatMap((b) => [
            [count(b.backlog), 'windows of 500 per receiver (now)', ...passes(b.window)],
            [count(b.backlog), 'every due row, first 500 (before)', ...passes(b.before)],
          ]),
        },
        {
          title: 'EXPLAIN of the sweep window’s query (SWEEP_WINDOW_SQL), at the largest backlog',
          header: ['access'],
          rows: sweep.explain.map((line) => [line]),
        },
        {
          title: `Webhook sweep: cost of a pass at ${count(large.backlog)} against ${count(small.backlog)} due deliveries`,
          header: ['sweep', 'time ratio (p50)', 'rows-read ratio'],
          rows: [
            ['windows of 500 per receiver (now)', ratios.windowMs.toFixed(1), ratios.windowRows.toFixed(1)],
            ['every due row, first 500 (before)', ratios.beforeMs.toFixed(1), ratios.beforeRows.toFixed(1)],
          ],
        },
      ],
      // Bounded: a pass at a thousand times the backlog reads at most the window's rows more.
      targets: [atMost('outbox sweep: rows read per pass, 100,000 / 100 backlog', ratios.windowRows, 10)],
    };
  },
};
