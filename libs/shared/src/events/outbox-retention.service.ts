import { Inject, Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { APP_CONFIG } from '../config/config.module';
import type { AppConfig } from '../config/config.schema';
import { eventGoes, pruneCutoffs, type EventToPrune, type PruneCutoffs } from './outbox-retention';
import { OutboxRetentionRepository } from './outbox-retention.repository';

/** Rows per statement: each batch is one short statement (or transaction), whatever the backlog. */
export const PRUNE_BATCH = 1_000;
/** The longest one prune runs; a larger backlog is left to the next run. */
export const PRUNE_BUDGET_MS = 20_000;

export interface PruneResult {
  events: number;
  deliveries: number;
  /** False when the time budget ran out before everything due was deleted. */
  complete: boolean;
}

type Walk = (afterSeq: string) => Promise<EventToPrune[]>;

/**
 * Applies the outbox's retention (outbox-retention.ts) in batches: events of erased authors first,
 * then settled deliveries by age, then events left without deliveries. Each batch is its own
 * statement or short transaction, and the run stops after its time budget, so pruning a large
 * backlog never holds locks that recording or delivering events would wait for.
 */
@Injectable()
export class OutboxRetentionService {
  private readonly retentionDays: number;

  constructor(
    private readonly repository: OutboxRetentionRepository,
    @Inject(APP_CONFIG) config: Pick<AppConfig, 'OUTBOX_RETENTION_DAYS'>,
  ) {
    this.retentionDays = config.OUTBOX_RETENTION_DAYS;
  }

  /**
   * In the transaction that completes an author's erasure (after its `erasure.completed` is
   * recorded): marks every event about the author, so each goes as soon as its deliveries settle.
   */
  markAuthorErased(manager: EntityManager, authorId: string, now: Date): Promise<number> {
    return this.repository.markAuthorErased(manager, authorId, now);
  }

  /** Deletes the erased events whose deliveries have all settled, with those deliveries. */
  async pruneErased(now = new Date(), budgetMs = PRUNE_BUDGET_MS): Promise<PruneResult> {
    const run = this.start(now, budgetMs);
    run.result.complete = await run.walk((after) => this.repository.erasedEventsAfter(after, PRUNE_BATCH));
    return run.result;
  }

  /** One run of the whole retention. */
  async prune(now = new Date(), budgetMs = PRUNE_BUDGET_MS): Promise<PruneResult> {
    const run = this.start(now, budgetMs);
    if (!(await run.walk((after) => this.repository.erasedEventsAfter(after, PRUNE_BATCH))))
      return run.result;
    for (const state of ['delivered', 'dead'] as const) {
      for (;;) {
        const deleted = await this.repository.deleteSettled(state, run.cutoffs[state], PRUNE_BATCH);
        run.result.deliveries += deleted;
        if (deleted < PRUNE_BATCH) break;
        if (run.spent()) return run.result;
      }
    }
    run.result.complete = await run.walk(
      (after) => this.repository.eventsAfter(after, PRUNE_BATCH),
      // Seqs follow recording order, so past the first event within the retention only newer ones come.
      (event) => event.occurredAt >= run.cutoffs.events,
    );
    return run.result;
  }

  private start(now: Date, budgetMs: number) {
    const deadline = Date.now() + budgetMs;
    const cutoffs: PruneCutoffs = pruneCutoffs(now, this.retentionDays);
    const result: PruneResult = { events: 0, deliveries: 0, complete: false };
    const spent = () => Date.now() >= deadline;
    /** Deletes the events of each batch that go; true when the walk reached its end within the budget. */
    const walk = async (read: Walk, isEnd: (event: EventToPrune) => boolean = () => false) => {
      for (let after = '0'; ;) {
        const batch = await read(after);
        const end = batch.findIndex(isEnd);
        const walked = end < 0 ? batch : batch.slice(0, end);
        const deleted = await this.repository.deleteEvents(
          walked.filter((event) => eventGoes(event, cutoffs)).map((event) => event.id),
        );
        result.events += deleted.events;
        result.deliveries += deleted.deliveries;
        if (end >= 0 || batch.length < PRUNE_BATCH) return true;
        if (spent()) return false;
        after = batch.at(-1)!.seq;
      }
    };
    return { cutoffs, result, spent, walk };
  }
}
