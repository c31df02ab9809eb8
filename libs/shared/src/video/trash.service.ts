import { Injectable } from '@nestjs/common';
import { VideoBatchRepository, type TrashItem } from './video-batch.repository';
import { mayActOn, type Actor } from './video-lifecycle';

export type TrashResult<T> = { kind: 'forbidden' } | ({ kind: 'ok' } & T);

/** Whose trash a request is about: the caller's, or (admins only) the one named; undefined when refused. */
export function trashOwner(actor: Actor, authorId: string | undefined): string | undefined {
  const owner = authorId ?? actor.sub;
  return mayActOn(actor, { authorId: owner }) ? owner : undefined;
}

/**
 * An author's trash (docs/contract.md §10.1): their soft-deleted videos. Restoring or emptying it
 * is a trash operation (`TrashOperationService`), worked off by the worker.
 */
@Injectable()
export class TrashService {
  constructor(private readonly batches: VideoBatchRepository) {}

  async list(
    actor: Actor,
    { authorId, page, limit }: { authorId?: string; page: number; limit: number },
  ): Promise<TrashResult<{ items: TrashItem[]; total: number }>> {
    const owner = trashOwner(actor, authorId);
    if (owner === undefined) return { kind: 'forbidden' };
    const [items, total] = await Promise.all([
      this.batches.trashPage(owner, (page - 1) * limit, limit),
      this.batches.trashCount(owner),
    ]);
    return { kind: 'ok', items, total };
  }
}
