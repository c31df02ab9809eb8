import { Inject, Injectable } from '@nestjs/common';
import { Webhook } from 'standardwebhooks';
import { APP_CONFIG } from '../config/config.module';
import type { AppConfig } from '../config/config.schema';

/** The headers a signed delivery carries, and what each means to a receiver (the OpenAPI webhooks document them). */
export const SIGNATURE_HEADERS = {
  'webhook-id':
    "the event's id (a UUID): the same on every attempt and for every receiver, so a receiver drops repeats by it",
  'webhook-timestamp': "the attempt's time, in Unix seconds: a receiver may refuse old ones (replays)",
  'webhook-signature':
    '`v1,` and the base64 HMAC-SHA256 of `<webhook-id>.<webhook-timestamp>.<body>`, keyed by the base64-decoded ' +
    'part of `WEBHOOK_SECRET` after `whsec_` (Standard Webhooks)',
} as const;

/**
 * Signs deliveries as the Standard Webhooks specification says, with its reference library: the
 * signature is `v1,` and the base64 HMAC-SHA256, keyed by the secret, of `id.timestamp.body`.
 */
@Injectable()
export class WebhookSigner {
  private readonly webhook?: Webhook;

  constructor(@Inject(APP_CONFIG) config: Pick<AppConfig, 'WEBHOOK_SECRET'>) {
    if (config.WEBHOOK_SECRET) this.webhook = new Webhook(config.WEBHOOK_SECRET);
  }

  /** The three headers of one attempt; the timestamp is the attempt's, so a receiver can refuse replays. */
  headers(eventId: string, body: string, at: Date): Record<keyof typeof SIGNATURE_HEADERS, string> {
    // The configuration refuses receivers without a secret, so this only guards a misuse.
    if (!this.webhook) throw new Error('WEBHOOK_SECRET is not set');
    return {
      'webhook-id': eventId,
      'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
      'webhook-signature': this.webhook.sign(eventId, at, body),
    };
  }
}
