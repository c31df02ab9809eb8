import { Inject, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { APP_CONFIG } from '../config/config.module';
import type { AppConfig } from '../config/config.schema';
import { VideoBatchCommands } from './video-batch-commands.service';
import { VideoBatchRepository, type TrashItem } from './video-batch.repository';
import { mayActOn, type Actor, type Command } from './video-lifecycle';
import { transactionRetryingDeadlocks } from '../database/transaction';

export type TrashResult<T> = { kind: 'forbidden' } | ({ kind: 'ok' } & T);

/**
 * An author's trash (docs/contract.md §10.1): their soft-deleted videos. Restoring or emptying it
 * applies the one-video command to each video through `decide()`, a batch at a time; the purges
 * themselves are the deletion jobs' work, as for one video.
 */
@Injectable()
export class TrashService {
  /** Rows per transaction: each batch is one short transaction, whatever the size of the trash. */
  private readonly batchSize: number;

  constructor(
    private readonly dataSource: DataSource,
    private readonly batches: VideoBatchRepository,
    private readonly commands: VideoBatchCommands,
    @Inject(APP_CONFIG) config: Pick<AppConfig, 'BULK_BATCH_SIZE'>,
  ) {
    this.batchSize = config.BULK_BATCH_SIZE;
  }

  /** Whose trash: the caller's, or (admins only) the one named. */
  private owner(actor: Actor, authorId: string | undefined): string | undefined {
    const owner = authorId ?? actor.sub;
    return mayActOn(actor, { authorId: owner }) ? owner : undefined;
  }

  async list(
    actor: Actor,
    { authorId, page, limit }: { authorId?: string; page: number; limit: number },
  ): Promise<TrashResult<{ items: TrashItem[]; total: number }>> {
    const owner = this.owner(actor, authorId);
    if (owner === undefined) return { kind: 'forbidden' };
    const [items, total] = await Promise.all([
      this.batches.trashPage(owner, (page - 1) * limit, limit),
      this.batches.trashCount(owner),
    ]);
    return { kind: 'ok', items, total };
  }

  restoreAll(actor: Actor, authorId?: string, requestId?: string): Promise<TrashResult<{ count: number }>> {
    return this.applyToAll(actor, authorId, { type: 'restore' }, requestId);
  }

  emptyAll(actor: Actor, authorId?: string, requestId?: string): Promise<TrashResult<{ count: number }>> {
    return this.applyToAll(actor, authorId, { type: 'permanent_delete' }, requestId);
  }

  /**
   * Every video in the trash when asked (deleted up to now) goes through `command`, in batches. Both
   * commands take a video out of the trash, so the next batch starts at the first one left.
   */
  private async applyToAll(
    actor: Actor,
    authorId: string | undefined,
    command: Command,
    requestId?: string,
  ): Promise<TrashResult<{ count: number }>> {
    const owner = this.owner(actor, authorId);
    if (owner === undefined) return { kind: 'forbidden' };
    const asked = new Date();
    let count = 0;
    for (;;) {
      const now = new Date();
      const { rows, changes } = await transactionRetryingDeadlocks(this.dataSource, async (manager) => {
        const locked = await this.batches.lockTrashBatch(manager, owner, asked, this.batchSize);
        return {
          rows: locked.length,
          changes: await this.commands.decideAndWrite(manager, locked, command, actor, now),
        };
      });
      await this.commands.followUp(changes, now, requestId);
      count += changes.length;
      // A batch that changed nothing would be read again: stop rather than loop.
      if (rows < this.batchSize || changes.length === 0) return { kind: 'ok', count };
    }
  }
}
