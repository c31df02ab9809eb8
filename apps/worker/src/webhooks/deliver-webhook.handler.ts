import { Injectable } from '@nestjs/common';
import { WebhookDeliveryService, type AttemptOutcome } from '@app/shared/events/webhook-delivery.service';
import { MetricsService } from '@app/shared/metrics/metrics.service';
import type { JobPayloads } from '@app/shared/queue/jobs';
import type { JobHandler } from '@app/shared/queue/job-handler';

/**
 * One delivery attempt. A failed attempt fails its job, so it shows on the dashboard with the
 * receiver's answer; the next attempt is a job of its own, scheduled by MySQL's retry time.
 */
@Injectable()
export class DeliverWebhookHandler implements JobHandler<'deliver-webhook'> {
  constructor(
    private readonly deliveries: WebhookDeliveryService,
    private readonly metrics: MetricsService,
  ) {}

  async handle({ deliveryId, attempt }: JobPayloads['deliver-webhook']): Promise<AttemptOutcome> {
    const outcome = await this.deliveries.attempt(deliveryId, attempt);
    if (outcome.kind !== 'skipped') this.metrics.webhookAttempts.inc({ outcome: outcome.kind });
    if (outcome.kind === 'failed' || outcome.kind === 'dead') {
      throw new Error(`delivery ${deliveryId} attempt ${attempt + 1} ${outcome.kind}: ${outcome.error}`);
    }
    return outcome;
  }
}
