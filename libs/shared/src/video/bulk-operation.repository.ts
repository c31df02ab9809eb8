import type { DataSource, EntityManager, EntityTarget, FindOptionsWhere, Repository } from 'typeorm';
import type { BulkOperationColumns } from './bulk-operation.entity';

/**
 * The reads every durable operation's table has (an erasure's, a trash operation's; see
 * bulk-operation.ts): by id, the author's unfinished one, and by id under lock for a batch.
 */
export abstract class BulkOperationRepository<E extends BulkOperationColumns> {
  protected readonly rows: Repository<E>;

  protected constructor(
    protected readonly dataSource: DataSource,
    private readonly entity: EntityTarget<E>,
  ) {
    this.rows = dataSource.getRepository(entity);
  }

  findById(id: string): Promise<E | null> {
    return this.rows.findOneBy({ id } as FindOptionsWhere<E>);
  }

  /** The author's unfinished operation, if any (`active_author` is set while it is unfinished). */
  findActive(authorId: string): Promise<E | null> {
    return this.rows.findOneBy({ activeAuthor: authorId } as FindOptionsWhere<E>);
  }

  /** Reads an operation and locks it until the transaction ends: its batches never interleave. */
  lockById(manager: EntityManager, id: string): Promise<E | null> {
    return manager
      .getRepository(this.entity)
      .findOne({ where: { id } as FindOptionsWhere<E>, lock: { mode: 'pessimistic_write' } });
  }
}
