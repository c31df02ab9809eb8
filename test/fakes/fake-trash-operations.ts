import type { EntityManager } from 'typeorm';
import type { TrashOperationEntity } from '@app/shared/trash/trash-operation.entity';
import type {
  NewTrashOperation,
  TrashOperationRepository,
} from '@app/shared/trash/trash-operation.repository';
import { VideoState } from '@app/shared/video/video-state';
import type { VideoEntity } from '@app/shared/video/video.entity';

/**
 * Trash operation rows in a map, behind a fake `TrashOperationRepository` that keeps its
 * one-running-per-author rule and counts the trash from `videos` as the real insert does.
 */
export function fakeTrashOperationStore(videos: Map<string, VideoEntity>) {
  const operations = new Map<string, TrashOperationEntity>();
  const update = (id: string, changes: Partial<TrashOperationEntity>) =>
    operations.set(id, { ...operations.get(id)!, ...changes });
  const repository = {
    insertUnlessActive: (asked: NewTrashOperation) => {
      if ([...operations.values()].some((operation) => operation.activeAuthor === asked.authorId))
        return Promise.resolve(false);
      const total = [...videos.values()].filter(
        (row) =>
          row.authorId === asked.authorId &&
          row.state === VideoState.SoftDeleted &&
          row.deletedAt! <= asked.startedAt,
      ).length;
      operations.set(asked.id, {
        ...asked,
        state: 'running',
        total,
        done: 0,
        activeAuthor: asked.authorId,
        completedAt: null,
        updatedAt: asked.startedAt,
      });
      return Promise.resolve(true);
    },
    findById: (id: string) => Promise.resolve(operations.get(id) ?? null),
    findActive: (authorId: string) =>
      Promise.resolve(
        [...operations.values()].find((operation) => operation.activeAuthor === authorId) ?? null,
      ),
    lockById: (_m: EntityManager, id: string) => Promise.resolve(operations.get(id) ?? null),
    advance: (_m: EntityManager, id: string, count: number, now: Date) => {
      const operation = operations.get(id)!;
      update(id, { done: Math.min(operation.total, operation.done + count), updatedAt: now });
      return Promise.resolve();
    },
    complete: (_m: EntityManager, id: string, now: Date) => {
      const operation = operations.get(id)!;
      if (operation.state === 'completed') return Promise.resolve(false);
      update(id, {
        state: 'completed',
        done: operation.total,
        completedAt: now,
        activeAuthor: null,
        updatedAt: now,
      });
      return Promise.resolve(true);
    },
    deleteCompletedOfAuthor: (_m: EntityManager, authorId: string) => {
      const gone = [...operations.values()].filter(
        (operation) => operation.authorId === authorId && operation.state === 'completed',
      );
      for (const { id } of gone) operations.delete(id);
      return Promise.resolve(gone.length);
    },
    unfinished: () =>
      Promise.resolve(
        [...operations.values()].filter((operation) => operation.state === 'running').map(({ id }) => id),
      ),
  };
  return { operations, repository: repository as unknown as TrashOperationRepository };
}
