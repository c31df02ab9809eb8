import type { EntityManager } from 'typeorm';
import { capturingOutbox, NOW, producedEvents, nextState, sampleVideo } from '@test/fakes/produced-events';
import { VideoState } from '../video/video-state';
import { videoChangeEvent, videoPurgedEvent } from '../video/video-events';
import { recordedEvent, type NewEvent } from './events';
import { EVENT_PAYLOADS, EVENT_TYPES } from './events.schema';

describe('event payloads', () => {
  it('EVENT_TYPES are the schemas’ types, in the contract’s order (docs/contract.md §10.4)', () => {
    expect(EVENT_TYPES).toEqual([
      'video.soft_deleted',
      'video.restored',
      'video.deletion_started',
      'video.purged',
      'erasure.completed',
    ]);
    expect(Object.keys(EVENT_PAYLOADS)).toEqual(EVENT_TYPES);
  });

  it('parses what every producer records, for every event type', async () => {
    const events = await producedEvents();
    expect(new Set(events.map((event) => event.type))).toEqual(new Set(EVENT_TYPES));
    for (const event of events) {
      const body: unknown = JSON.parse(event.body);
      expect([event.type, EVENT_PAYLOADS[event.type].safeParse(body).error]).toEqual([event.type, undefined]);
      expect(event.authorId).toBe('author-1');
    }
  });

  it('gives each type exactly the data the contract lists', async () => {
    const fields = Object.fromEntries(
      (await producedEvents()).map((event) => {
        const body = JSON.parse(event.body) as { type: string; timestamp: string; data: object };
        expect(Object.keys(body)).toEqual(['type', 'timestamp', 'data']);
        return [event.type, Object.keys(body.data).sort()];
      }),
    );
    expect(fields).toEqual({
      'video.soft_deleted': ['authorId', 'deletedAt', 'purgeAt', 'requestedBy', 'videoId'],
      'video.restored': ['authorId', 'requestedBy', 'restoredAt', 'videoId'],
      'video.deletion_started': ['authorId', 'reason', 'requestedBy', 'startedAt', 'videoId'],
      'video.purged': [
        'authorId',
        'deletedAt',
        'objectsRemoved',
        'purgedAt',
        'reason',
        'requestedBy',
        'videoId',
      ],
      'erasure.completed': [
        'authorId',
        'completedAt',
        'erasureId',
        'mode',
        'requestedBy',
        'startedAt',
        'total',
      ],
    });
  });

  describe('a payload that does not match its schema', () => {
    const restored = (data: Record<string, unknown>) =>
      ({
        type: 'video.restored',
        subject: sampleVideo.id,
        occurredAt: NOW,
        data: {
          videoId: sampleVideo.id,
          authorId: 'author-1',
          requestedBy: null,
          restoredAt: NOW.toISOString(),
          ...data,
        },
      }) as unknown as NewEvent;

    it.each([
      ['a field missing', { restoredAt: undefined }, /restoredAt/],
      ['a field of another event', { purgeAt: NOW.toISOString() }, /purgeAt/],
      ['a time that is not ISO 8601', { restoredAt: NOW.toString() }, /restoredAt/],
      ['a Date where a string belongs', { restoredAt: NOW }, /restoredAt/],
      ['a number where a string belongs', { authorId: 7 }, /authorId/],
    ])('is refused: %s', (_what, data, field) => {
      expect(() => recordedEvent(restored(data))).toThrow(/video\.restored event does not match its schema/);
      expect(() => recordedEvent(restored(data))).toThrow(field);
    });

    it('is refused for its own type’s rules too: a negative count, an unknown reason', () => {
      const purged = videoPurgedEvent(
        { ...sampleVideo, deletedAt: null, deletionReason: 'deleted' as never, deletionRequestedBy: null },
        -1,
        NOW,
      );
      expect(() => recordedEvent(purged)).toThrow(/objectsRemoved/);
      expect(() => recordedEvent(purged)).toThrow(/reason/);
      expect(() => recordedEvent({ ...purged, type: 'video.restored' } as NewEvent)).toThrow(
        /video\.restored event does not match/,
      );
    });

    it('makes the outbox write nothing: it throws before the insert, in the caller’s transaction', async () => {
      const { service, written } = capturingOutbox();
      const good = videoChangeEvent(sampleVideo, nextState({ state: VideoState.Active }), 'author-1', NOW);
      await expect(service.record({} as EntityManager, [good, restored({ extra: true })])).rejects.toThrow(
        /does not match its schema/,
      );
      expect(written).toEqual([]);
    });
  });
});
