import { randomUUID } from 'node:crypto';
import type { EntityManager } from 'typeorm';
import type { RecordedEvent } from '@app/shared/events/events';
import { videoChangeEvent, videoPurgedEvent } from '@app/shared/video/video-events';
import type { OutboxRepository } from '@app/shared/events/outbox.repository';
import { OutboxService } from '@app/shared/events/outbox.service';
import { VideoState } from '@app/shared/video/video-state';

export const NOW = new Date('2026-03-01T12:00:00.000Z');
export const LATER = new Date('2026-03-31T12:00:00.000Z');
export const sampleVideo = { id: randomUUID(), authorId: 'author-1' };
export const nextState = (changes: Partial<Parameters<typeof videoChangeEvent>[1]>) => ({
  state: VideoState.Active,
  deletedAt: null,
  purgeAt: null,
  deletionReason: null,
  deletionRequestedBy: null,
  ...changes,
});

/** An outbox over a repository that keeps what it is asked to write. */
export function capturingOutbox() {
  const written: RecordedEvent[] = [];
  const repository = {
    insert: (_manager: EntityManager, events: RecordedEvent[]) => (
      written.push(...events),
      Promise.resolve()
    ),
  } as unknown as OutboxRepository;
  const service = new OutboxService(repository, { WEBHOOK_URLS: ['https://receiver.test/hooks'] });
  return { service, written };
}

/** What every producer of events records, each way it produces one, through the real OutboxService. */
export async function producedEvents(): Promise<RecordedEvent[]> {
  const { service, written } = capturingOutbox();
  const manager = {} as EntityManager;
  await service.record(manager, [
    videoChangeEvent(
      sampleVideo,
      nextState({ state: VideoState.SoftDeleted, deletedAt: NOW, purgeAt: LATER }),
      'author-1',
      NOW,
    ),
    videoChangeEvent(sampleVideo, nextState({ state: VideoState.Active }), null, NOW),
    videoChangeEvent(
      sampleVideo,
      nextState({ state: VideoState.Deleting, deletionReason: 'retention', deletionRequestedBy: 'author-1' }),
      null,
      LATER,
    ),
    videoChangeEvent(sampleVideo, nextState({ state: VideoState.Deleting }), 'admin', NOW),
    videoPurgedEvent(
      { ...sampleVideo, deletedAt: NOW, deletionReason: 'retention', deletionRequestedBy: 'author-1' },
      2,
      LATER,
    ),
    videoPurgedEvent(
      { ...sampleVideo, deletedAt: null, deletionReason: null, deletionRequestedBy: null },
      0,
      LATER,
    ),
  ]);
  await service.recordErasureCompleted(manager, {
    erasureId: randomUUID(),
    authorId: 'author-1',
    mode: 'permanent',
    total: 3,
    requestedBy: 'admin',
    startedAt: NOW.toISOString(),
    completedAt: LATER.toISOString(),
  });
  return written;
}
