import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `(state, endpoint_key, id)` on the deliveries: the webhook sweep reads each receiver's pending
 * deliveries in id order from a position, a bounded window per pass (`SWEEP_WINDOW_SQL`), instead
 * of every due row each pass (during an outage, all of them). Built in place, without locking the
 * table: deliveries go on being recorded and delivered while it builds.
 */
export class WebhookSweepIndex1795910400000 implements MigrationInterface {
  name = 'WebhookSweepIndex1795910400000';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(
      'ALTER TABLE webhook_deliveries ADD KEY idx_webhook_deliveries_receiver (state, endpoint_key, id), ALGORITHM=INPLACE, LOCK=NONE',
    );
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query('ALTER TABLE webhook_deliveries DROP KEY idx_webhook_deliveries_receiver');
  }
}
