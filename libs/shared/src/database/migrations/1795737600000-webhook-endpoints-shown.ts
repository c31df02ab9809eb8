import type { MigrationInterface, QueryRunner } from 'typeorm';
import { receiverKey, shownUrl } from '../../net/receiver-url';

/**
 * Deliveries recorded before receivers' URLs were stored as shown (`shownUrl`) hold them as
 * configured, `user:password@` and query tokens included: rewritten here, with the key a URL with
 * credentials now has (`receiverKey`), so their retries still find the receiver. The credentials
 * are gone from the rows for good, so there is no way down.
 */
export class WebhookEndpointsShown1795737600000 implements MigrationInterface {
  name = 'WebhookEndpointsShown1795737600000';

  async up(runner: QueryRunner): Promise<void> {
    const endpoints = (await runner.query(
      `SELECT DISTINCT endpoint, endpoint_key FROM webhook_deliveries
       WHERE endpoint LIKE '%@%' OR endpoint LIKE '%?%' OR endpoint LIKE '%#%'`,
    )) as { endpoint: string; endpoint_key: string }[];
    for (const { endpoint, endpoint_key: key } of endpoints) {
      await runner.query(
        'UPDATE webhook_deliveries SET endpoint = ?, endpoint_key = ? WHERE endpoint_key = ?',
        [shownUrl(endpoint), receiverKey(endpoint), key],
      );
    }
  }

  async down(): Promise<void> {
    // Nothing to restore: the stored URLs only lost what must not be stored.
  }
}
