import type { EntityManager } from 'typeorm';
import type { ErasureEntity, ErasureState } from '@app/shared/erasure/erasure.entity';
import type { ErasureRepository, NewErasure } from '@app/shared/erasure/erasure.repository';
import type { VideoBatchRepository } from '@app/shared/video/video-batch.repository';

/** Erasure rows in a map, behind a fake `ErasureRepository` that keeps its one-unfinished-per-author rule. */
export function fakeErasureStore(batches: VideoBatchRepository) {
  const erasures = new Map<string, ErasureEntity>();
  const update = (id: string, changes: Partial<ErasureEntity>) => {
    const erasure = erasures.get(id)!;
    erasures.set(id, { ...erasure, ...changes });
  };
  const repository = {
    insertUnlessActive: async (asked: NewErasure) => {
      if ([...erasures.values()].some((erasure) => erasure.activeAuthor === asked.authorId)) return false;
      const total = await batches.countErasable(asked.authorId, asked.startedAt);
      erasures.set(asked.id, {
        ...asked,
        state: 'running',
        total,
        done: 0,
        afterId: '',
        activeAuthor: asked.authorId,
        completedAt: null,
        updatedAt: asked.startedAt,
      });
      return true;
    },
    findById: (id: string) => Promise.resolve(erasures.get(id) ?? null),
    findActive: (authorId: string) =>
      Promise.resolve([...erasures.values()].find((erasure) => erasure.activeAuthor === authorId) ?? null),
    lockById: (_m: EntityManager, id: string) => Promise.resolve(erasures.get(id) ?? null),
    advance: (_m: EntityManager, id: string, afterId: string, videos: number, now: Date) => {
      const erasure = erasures.get(id)!;
      update(id, { afterId, done: Math.min(erasure.total, erasure.done + videos), updatedAt: now });
      return Promise.resolve();
    },
    finishWalk: (_m: EntityManager, id: string, state: Exclude<ErasureState, 'running'>, now: Date) => {
      const erasure = erasures.get(id)!;
      if (erasure.state === 'completed') return Promise.resolve(false);
      const completed = state === 'completed';
      update(id, {
        state,
        done: erasure.total,
        completedAt: completed ? now : null,
        activeAuthor: completed ? null : erasure.activeAuthor,
        updatedAt: now,
      });
      return Promise.resolve(true);
    },
    unfinished: () =>
      Promise.resolve([...erasures.values()].filter((erasure) => erasure.state !== 'completed')),
  };
  return { erasures, repository: repository as unknown as ErasureRepository };
}
