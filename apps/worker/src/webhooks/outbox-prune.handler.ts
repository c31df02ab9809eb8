import { Injectable, Logger } from '@nestjs/common';
import { OutboxRetentionService, type PruneResult } from '@app/shared/events/outbox-retention.service';
import type { SweepHandler } from '@app/shared/queue/job-handler';

/**
 * The outbox's retention, every `OUTBOX_PRUNE_INTERVAL_MS`: a run stops after its time budget and
 * the next carries on, so a backlog (the first run after an upgrade) goes over a few runs.
 */
@Injectable()
export class OutboxPruneHandler implements SweepHandler {
  private readonly logger = new Logger(OutboxPruneHandler.name);

  constructor(private readonly retention: OutboxRetentionService) {}

  async handle(): Promise<PruneResult> {
    const result = await this.retention.prune();
    if (result.events + result.deliveries > 0) this.logger.log(result, 'outbox pruned');
    return result;
  }
}
