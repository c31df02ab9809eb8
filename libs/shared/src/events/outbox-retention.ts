import { DAY_MS } from '../util/time';

/**
 * How long the outbox keeps what it has sent (docs/contract.md §10.4). Events carry personal data
 * (`authorId`, `requestedBy`) and deliveries a receiver's answer (`last_error`): once their job is
 * done they go.
 *
 * - A delivered delivery: `OUTBOX_RETENTION_DAYS` after its delivery (its last attempt).
 * - A dead delivery: DEAD_DELIVERY_DAYS after its last attempt. This is the intended end of a dead
 *   delivery: until then it holds back the later events of its subject to its receiver (the order
 *   rule, `WAITS_FOR_EARLIER`) and an operator may retry it; once pruned, the later ones go. A
 *   receiver dead for a month has lost the event's place in the order either way.
 * - A pending delivery: never, whatever its age (the retry window decides when it dies).
 * - An event: when it has no delivery left and is older than the retention (an event recorded
 *   with no receiver configured has none: it goes after the retention).
 * - An event of an erased author (`erased_at`): as soon as none of its deliveries is pending, with
 *   its deliveries, whatever the retention. Dead ones go with it: an erasure ends them too.
 */
export const DEAD_DELIVERY_DAYS = 30;

export type SettledState = 'delivered' | 'dead';

/** A settled delivery goes when its last attempt is older than the cutoff of its state. */
export interface PruneCutoffs {
  delivered: Date;
  dead: Date;
  /** Events older than this with no delivery left go. */
  events: Date;
}

export function pruneCutoffs(now: Date, retentionDays: number): PruneCutoffs {
  const before = (days: number) => new Date(now.getTime() - days * DAY_MS);
  return {
    delivered: before(retentionDays),
    dead: before(DEAD_DELIVERY_DAYS),
    events: before(retentionDays),
  };
}

/** An event as the prune sees it: its age, its mark, and how many of its deliveries are left and pending. */
export interface EventToPrune {
  seq: string;
  id: string;
  occurredAt: Date;
  erased: boolean;
  deliveries: number;
  pending: number;
}

/** Whether the event goes now, with its settled deliveries. */
export function eventGoes(event: EventToPrune, cutoffs: PruneCutoffs): boolean {
  if (event.erased) return event.pending === 0;
  return event.deliveries === 0 && event.occurredAt < cutoffs.events;
}
