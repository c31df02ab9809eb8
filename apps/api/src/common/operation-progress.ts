import type { BulkOperationColumns } from '@app/shared/video/bulk-operation.entity';

/**
 * What the answer of every durable operation (`getErasure`, `getTrashOperation`) says of its
 * progress, read alike: whose videos, `done` of `total`, and its times in ISO 8601 UTC.
 */
export function operationProgress(operation: BulkOperationColumns) {
  return {
    authorId: operation.authorId,
    total: operation.total,
    done: operation.done,
    startedAt: operation.startedAt.toISOString(),
    completedAt: operation.completedAt?.toISOString() ?? null,
  };
}
