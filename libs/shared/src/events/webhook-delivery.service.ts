import { Inject, Injectable, Logger } from '@nestjs/common';
import { APP_CONFIG } from '../config/config.module';
import type { AppConfig } from '../config/config.schema';
import { enqueue } from '../queue/enqueue';
import { JobQueues } from '../queue/job-queues.service';
import { receiverKey } from '../net/receiver-url';
import { eachLimited } from '../util/each-limited';
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

/**
 * Pending deliveries of one receiver the sweep reads per pass: its cost per pass is bounded by this,
 * not by the backlog (a receiver down for hours may have 100,000). The next pass reads the next window.
 */
export const SWEEP_WINDOW = 500;
/** Queue calls made at once by a pass, per receiver. */
const SWEEP_QUEUE_CONCURRENCY = 16;

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
  /** Where each receiver's next sweep window starts (a delivery id; '0' from the first). Per process. */
  private readonly windows = new Map<string, string>();

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

  /**
   * One pass: for each receiver with pending deliveries, at once, reads a window of SWEEP_WINDOW of
   * them and enqueues those due that wait for no earlier one (on the receiver's queue). Windows move
   * on from pass to pass and start again from the first after the last, so every pending delivery is
   * looked at within (backlog / SWEEP_WINDOW) passes, and a pass costs the same whatever the backlog.
   * Returns how many it enqueued.
   */
  async sweep(): Promise<number> {
    const now = new Date();
    const receivers = await this.outbox.pendingReceivers();
    const enqueued = await Promise.all(receivers.map((endpointKey) => this.sweepReceiver(endpointKey, now)));
    return enqueued.reduce((sum, n) => sum + n, 0);
  }

  private async sweepReceiver(endpointKey: string, now: Date): Promise<number> {
    const window = await this.outbox.sweepWindow(
      endpointKey,
      this.windows.get(endpointKey) ?? '0',
      SWEEP_WINDOW,
      now,
    );
    // A short window reached the last pending delivery: the next pass starts from the first again.
    this.windows.set(endpointKey, window.length < SWEEP_WINDOW ? '0' : window.at(-1)!.id);
    const ready = window.filter((delivery) => delivery.ready);
    await eachLimited(ready, SWEEP_QUEUE_CONCURRENCY, (delivery) =>
      this.queues.ensureDeliveryJob({ id: delivery.id, endpointKey }, delivery.attempts, 0),
    );
    return ready.length;
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
      if (next) await this.prompt({ id: next.id, endpointKey: delivery.endpointKey }, next.attempts, 0);
      return { kind: 'delivered' };
    }
    const nextAt = nextAttemptAfterFailure(
      { failures: attempt + 1, firstFailedAt: delivery.firstFailedAt },
      now,
      this.policy,
    );
    await this.outbox.markFailed(deliveryId, attempt, { now, error: result.error, next: nextAt });
    if (!nextAt) return { kind: 'dead', error: result.error };
    await this.prompt(delivery, attempt + 1, nextAt.getTime() - now.getTime());
    return { kind: 'failed', error: result.error };
  }

  /** Queues an attempt; if Redis does not take it, the sweep finds the delivery due in MySQL. */
  private async prompt(
    delivery: { id: string; endpointKey: string },
    attempt: number,
    delayMs: number,
  ): Promise<void> {
    await enqueue(this.queues.ensureDeliveryJob(delivery, attempt, delayMs), 'deliver-webhook', {
      logger: this.logger,
      warn: `delivery ${delivery.id} attempt ${attempt} left to the sweep`,
    });
  }
}
