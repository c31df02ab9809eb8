import { z } from 'zod';

/**
 * The events and what each carries (docs/contract.md §10.4), written once: the outbox checks every
 * event against these schemas before recording it (events.ts), the TypeScript types are inferred
 * from them, and the OpenAPI document's `webhooks` are generated from them (apps/api/src/openapi.ts).
 */

const time = (description: string) => z.iso.datetime().meta({ description: `ISO 8601, UTC: ${description}` });
// The UUID rule is the import's and the API's (ids/uuid.ts); the outbox checks the event's shape.
const videoId = z.string().meta({ description: "the video's id (a UUID, docs/contract.md §5)" });
const authorId = z.string().meta({ description: "the video's author (a caller's `sub`)" });
const requestedBy = z
  .string()
  .nullable()
  .meta({ description: 'the `sub` of the caller who asked; null when none did' });
const reason = z.enum(['permanent', 'retention']).meta({
  description:
    '`permanent`: deleted on request; `retention`: a soft delete purged when its retention ended ' +
    '(its `requestedBy` is who soft-deleted the video)',
});

/** One event type: what it says, and its `data`. */
interface EventDefinition {
  summary: string;
  description: string;
  data: z.ZodObject;
}

const EVENTS = {
  'video.soft_deleted': {
    summary: 'A video was soft-deleted',
    description:
      'A video went to the trash, or a second soft delete moved its purge date: it is restorable until `purgeAt`.',
    data: z.strictObject({
      videoId,
      authorId,
      requestedBy,
      deletedAt: time('when it left the catalogue (kept by a repeated soft delete)'),
      purgeAt: time('when retention purges it'),
    }),
  },
  'video.restored': {
    summary: 'A soft-deleted video was restored',
    description: 'A video came back from the trash: it is active again.',
    data: z.strictObject({ videoId, authorId, requestedBy, restoredAt: time('when it came back') }),
  },
  'video.deletion_started': {
    summary: 'A video is being deleted for good',
    description:
      'A permanent delete, or a retention purge the worker has claimed: the video is gone for every caller, ' +
      'its media and index document follow. Sent once per deletion.',
    data: z.strictObject({
      videoId,
      authorId,
      reason,
      requestedBy,
      startedAt: time('when the deletion began'),
    }),
  },
  'video.purged': {
    summary: 'A video was purged',
    description:
      'Media, index document and row are gone; the audit record keeps the receipt (docs/contract.md §10.3). ' +
      'Sent once per deletion.',
    data: z.strictObject({
      videoId,
      authorId,
      reason,
      requestedBy,
      deletedAt: z.iso.datetime().nullable().meta({
        description:
          "ISO 8601, UTC: the soft delete's time (a permanent delete's request, for an active video), or null",
      }),
      purgedAt: time('when the purge finished'),
      objectsRemoved: z.number().int().nonnegative().meta({ description: 'media objects deleted' }),
    }),
  },
  'erasure.completed': {
    summary: "An author's erasure completed",
    description:
      'Every video of an erasure request (docs/contract.md §10.2) has reached its end state: trashed for a soft ' +
      'erasure, purged for a permanent one.',
    data: z.strictObject({
      erasureId: z.string().meta({ description: 'the erasure request (a UUID)' }),
      authorId: z.string().meta({ description: 'the author whose videos were erased' }),
      mode: z.enum(['soft', 'permanent']),
      total: z.number().int().nonnegative().meta({ description: 'the videos it covered' }),
      requestedBy,
      startedAt: time('when it was asked for'),
      completedAt: time('when its last video reached its end state'),
    }),
  },
} as const satisfies Record<string, EventDefinition>;

export type EventType = keyof typeof EVENTS;

/** Every event type, in the contract's order: the keys of the definitions above, never listed again. */
export const EVENT_TYPES = Object.keys(EVENTS) as EventType[];

/** What each event says (its `data`), by type. */
export type EventData = { [T in EventType]: z.output<(typeof EVENTS)[T]['data']> };

/** The summary and description of an event type, for the webhooks of the OpenAPI document. */
export function describeEvent(type: EventType): { summary: string; description: string } {
  const { summary, description } = EVENTS[type];
  return { summary, description };
}

/** The body every receiver gets, in the shape Standard Webhooks recommends: `{ type, timestamp, data }`. */
type PayloadSchema<T extends EventType> = z.ZodObject<
  { type: z.ZodLiteral<T>; timestamp: z.ZodISODateTime; data: (typeof EVENTS)[T]['data'] },
  z.core.$strict
>;

function payloadSchema<T extends EventType>(type: T): PayloadSchema<T> {
  return z.strictObject({
    type: z.literal(type),
    timestamp: time('when the change happened'),
    data: EVENTS[type].data,
  });
}

/** The body's schema by event type. */
export const EVENT_PAYLOADS = Object.fromEntries(EVENT_TYPES.map((type) => [type, payloadSchema(type)])) as {
  [T in EventType]: PayloadSchema<T>;
};
