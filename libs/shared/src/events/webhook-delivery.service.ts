import { Inject, Injectable, Logger } from '@nestjs/common';
import { APP_CONFIG } from '../config/config.module';
import type { AppConfig } from '../config/config.schema';
import { JobQueues, QUEUE_TIMEOUT_MS } from '../queue/job-queues.service';
import { receiverKey } from '../net/receiver-url';
import { withTimeout } from '../util/with-timeout';
import { OutboxRepository } from './outbox.repository';
import { WebhookClient } from './webhook.client';
import { nextAttemptAfterFailure, type RetryPolicy } from './webhook-retry';
import { WebhookSigner } from './webhook-signer';

export type AttemptOutcome =
  /** The receiver answered 2xx. */
  | { kind: 'delivered' }
  /** It did not; another attempt is scheduled. */
  | { kind: 'failed'; error: string }
  /** It did not, and the retry window has passed (or the receiver is no longer configured). */
  | { kind: 'dead'; error: string }
  /** Nothing to do: delivered or attempted meanwhile, or an earlier event to this receiver is still on its way. */
  | { kind: 'skipped'; reason: 'stale' | 'waiting' };

/** Due deliveries enqueued per sweep; the next sweep takes the rest. */
const SWEEP_BATCH = 500;

/**
 * Works off the outbox: one attempt of one delivery at a time, in order per subject and receiver.
 * MySQL holds every delivery's state and next attempt, so the queue only makes this prompt: the
 * sweep enqueues whatever is due, after a Redis loss too.
 */
@Injectable()
export class WebhookDeliveryService {
  private readonly logger = new Logger(WebhookDeliveryService.name);
  /** Each configured URL by its key: rows hold the URL without credentials, sending needs them. */
  private readonly receivers: Map<string, string>;
  private readonly policy: RetryPolicy;

  constructor(
    private readonly outbox: OutboxRepository,
    private readonly client: WebhookClient,
    private readonly signer: WebhookSigner,
    private readonly queues: JobQueues,
    @Inject(APP_CONFIG)
    config: Pick<
      AppConfig,
      'WEBHOOK_URLS' | 'WEBHOOK_RETRY_BASE_MS' | 'WEBHOOK_RETRY_MAX_MS' | 'WEBHOOK_RETRY_WINDOW_MS'
    >,
  ) {
    this.receivers = new Map(config.WEBHOOK_URLS.map((url) => [receiverKey(url), url]));
    this.policy = {
      baseMs: config.WEBHOOK_RETRY_BASE_MS,
      maxMs: config.WEBHOOK_RETRY_MAX_MS,
      windowMs: config.WEBHOOK_RETRY_WINDOW_MS,
    };
  }

  /** Enqueues every delivery that is due and waits for no earlier one. Returns how many. */
  async sweep(): Promise<number> {
    const due = await this.outbox.dueHeads(new Date(), SWEEP_BATCH);
    for (const delivery of due) await this.queues.ensureDeliveryJob(delivery.id, delivery.attempts, 0);
    return due.length;
  }

  /** Makes one attempt, if `attempt` is still the delivery's next one and its turn has come. */
  async attempt(deliveryId: string, attempt: number): Promise<AttemptOutcome> {
    const delivery = await this.outbox.findToSend(deliveryId);
    if (!delivery || delivery.state !== 'pending' || delivery.attempts !== attempt)
      return { kind: 'skipped', reason: 'stale' };
    if (await this.outbox.waitsForEarlier(deliveryId)) return { kind: 'skipped', reason: 'waiting' };
    const url = this.receivers.get(delivery.endpointKey);
    if (!url) {
      const error = 'the receiver is no longer in WEBHOOK_URLS';
      await this.outbox.markFailed(deliveryId, attempt, { now: new Date(), error, next: null });
      return { kind: 'dead', error };
    }
    const sentAt = new Date();
    const result = await this.client.post(
      url,
      this.signer.headers(delivery.eventId, delivery.body, sentAt),
      delivery.body,
    );
    const now = new Date();
    if (result.ok) {
      await this.outbox.markDelivered(deliveryId, attempt, now);
      // The next event about the same subject to this receiver may go now, without waiting for the sweep.
      const next = await this.outbox.nextHead(delivery, now);
      if (next) await this.prompt(next.id, next.attempts, 0);
      return { kind: 'delivered' };
    }
    const nextAt = nextAttemptAfterFailure(
      { failures: attempt + 1, firstFailedAt: delivery.firstFailedAt },
      now,
      this.policy,
    );
    await this.outbox.markFailed(deliveryId, attempt, { now, error: result.error, next: nextAt });
    if (!nextAt) return { kind: 'dead', error: result.error };
    await this.prompt(deliveryId, attempt + 1, nextAt.getTime() - now.getTime());
    return { kind: 'failed', error: result.error };
  }

  /** Queues an attempt; if Redis does not take it, the sweep finds the delivery due in MySQL. */
  private async prompt(deliveryId: string, attempt: number, delayMs: number): Promise<void> {
    await withTimeout(
      this.queues.ensureDeliveryJob(deliveryId, attempt, delayMs),
      QUEUE_TIMEOUT_MS,
      'queue deliver-webhook',
    ).catch((error: unknown) =>
      this.logger.warn(`delivery ${deliveryId} attempt ${attempt} left to the sweep: ${String(error)}`),
    );
  }
}
