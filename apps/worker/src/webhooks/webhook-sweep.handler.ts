import { Injectable } from '@nestjs/common';
import { WebhookDeliveryService } from '@app/shared/events/webhook-delivery.service';
import type { SweepHandler } from '@app/shared/queue/job-handler';

/** MySQL holds every pending delivery: this sweep alone would deliver everything, even after Redis lost every job. */
@Injectable()
export class WebhookSweepHandler implements SweepHandler {
  constructor(private readonly deliveries: WebhookDeliveryService) {}

  async handle(): Promise<{ enqueued: number }> {
    return { enqueued: await this.deliveries.sweep() };
  }
}
