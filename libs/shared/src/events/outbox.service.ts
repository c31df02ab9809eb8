import { Inject, Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { APP_CONFIG } from '../config/config.module';
import type { AppConfig } from '../config/config.schema';
import { endpointOf, type Endpoint } from '../net/receiver-url';
import { recordedEvent, type EventData, type NewEvent } from './events';
import { OutboxRepository } from './outbox.repository';

/**
 * Records events in the outbox. Call it inside the transaction of the change an event reports,
 * after the changed row is locked or written: the event then exists exactly when the change does,
 * and events about one subject are recorded in the order of its changes. Each event gets one
 * pending delivery per receiver configured now (`WEBHOOK_URLS`); the worker delivers them.
 */
@Injectable()
export class OutboxService {
  private readonly endpoints: Endpoint[];

  constructor(
    private readonly outbox: OutboxRepository,
    @Inject(APP_CONFIG) config: Pick<AppConfig, 'WEBHOOK_URLS'>,
  ) {
    this.endpoints = config.WEBHOOK_URLS.map(endpointOf);
  }

  async record(manager: EntityManager, events: NewEvent[]): Promise<void> {
    await this.outbox.insert(
      manager,
      events.map((event) => recordedEvent(event)),
      this.endpoints,
    );
  }

  /** `erasure.completed`, in the transaction that marks the erasure complete. */
  recordErasureCompleted(
    manager: EntityManager,
    data: EventData['erasure.completed'],
    completedAt: Date = new Date(data.completedAt),
  ): Promise<void> {
    return this.record(manager, [
      { type: 'erasure.completed', subject: data.erasureId, data, occurredAt: completedAt },
    ]);
  }
}
