import { Injectable, Logger } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { videoChangeEvent } from './video-events';
import { OutboxService } from '../events/outbox.service';
import { JobQueues } from '../queue/job-queues.service';
import { eachLimited } from '../util/each-limited';
import { queueEffect } from './video-effects';
import { VideoBatchRepository, type StateColumns } from './video-batch.repository';
import { VideoIndexSyncService } from './video-index-sync.service';
import { decide, type Actor, type Command, type Effect, type NextState } from './video-lifecycle';
import { type VideoLifecycleRow, VideoRepository } from './video.repository';

/** One video of a batch that `decide()` changed: the row as locked, and what it becomes. */
export interface BatchChange {
  before: VideoLifecycleRow;
  next: NextState;
  effects: Effect[];
}

/** Queue calls made at once after a batch: enough to hide Redis round trips, few enough to be polite. */
const QUEUE_CONCURRENCY = 16;

/** The columns of `next` that differ from the row's: what the UPDATE must write. */
export function changedColumns(before: VideoLifecycleRow, next: NextState): StateColumns {
  const changed: StateColumns = {};
  for (const name of Object.keys(next) as (keyof NextState)[]) {
    const was = before[name] ?? null;
    const will = next[name];
    const same =
      was instanceof Date && will instanceof Date ? was.getTime() === will.getTime() : was === will;
    if (!same) Object.assign(changed, { [name]: will });
  }
  return changed;
}

/**
 * One command applied to many videos, each decided by the same rule as one video (`decide()` in
 * video-lifecycle.ts). The caller locks a batch of rows in its own short transaction; this decides
 * each and writes the changes set-based (and their events) in that transaction, and after the commit makes the queue
 * prompt and the index current for the whole batch. As for one video, nothing depends on those
 * follow-ups: the sweeps find due and stuck deletions by their rows, the reconciler fixes the index.
 */
@Injectable()
export class VideoBatchCommands {
  private readonly logger = new Logger(VideoBatchCommands.name);

  constructor(
    private readonly batches: VideoBatchRepository,
    private readonly videos: VideoRepository,
    private readonly queues: JobQueues,
    private readonly index: VideoIndexSyncService,
    private readonly outbox: OutboxService,
  ) {}

  /**
   * Decides `command` for every locked row and writes the changes, with each video's event in the
   * outbox, in the caller's transaction.
   */
  async decideAndWrite(
    manager: EntityManager,
    rows: VideoLifecycleRow[],
    command: Command,
    actor: Actor | null,
    now: Date,
  ): Promise<BatchChange[]> {
    const changes: BatchChange[] = [];
    for (const row of rows) {
      // Rows already where the command takes them (a repeat) stay as they are, as for one video.
      const decision = decide(row, command, actor, now);
      if (decision.kind === 'change')
        changes.push({ before: row, next: decision.next, effects: decision.effects });
    }
    await this.batches.writeStates(
      manager,
      changes.map(({ before, next }) => ({ id: before.id, columns: changedColumns(before, next) })),
      now,
    );
    await this.outbox.record(
      manager,
      changes.map(({ before, next }) => videoChangeEvent(before, next, actor?.sub ?? null, now)),
    );
    return changes;
  }

  /** After the commit: one bulk index write for the batch, and each video's job. Never throws. */
  async followUp(changes: BatchChange[], now: Date, requestId?: string): Promise<void> {
    if (changes.length === 0) return;
    await this.queueEffects(changes, now, requestId);
    // MySQL gone since the commit: the reconciler writes these documents later.
    const rows = await this.videos.findByIds(changes.map(({ before }) => before.id)).catch(() => []);
    await this.index.writeMany(rows, requestId);
  }

  /** Stops at the first queue failure: Redis is away, and the sweeps will find every row anyway. */
  private async queueEffects(changes: BatchChange[], now: Date, requestId?: string): Promise<void> {
    const jobs = changes.flatMap(({ before, next, effects }) =>
      effects.map((effect) => ({ id: before.id, next, effect })),
    );
    await eachLimited(jobs, QUEUE_CONCURRENCY, ({ id, next, effect }) =>
      queueEffect(this.queues, id, effect, next, now, requestId, true),
    ).catch((error: unknown) =>
      this.logger.warn(`jobs for a batch of ${changes.length} deferred to the sweep: ${String(error)}`),
    );
  }
}
