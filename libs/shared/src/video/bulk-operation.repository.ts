import type { DataSource, EntityManager, EntityTarget, FindOptionsWhere, Repository } from 'typeorm';
import { isMysqlError, MYSQL_ERRORS } from '../database/mysql-errors';
import type { BulkOperationColumns } from './bulk-operation.entity';

/** The unfinished operations of one state, for the metrics. */
export interface UnfinishedOperations<S extends string> {
  state: S;
  count: number;
  /** When the oldest of them was asked for. */
  oldestStartedAt: Date;
  /** The least recent progress among them: a batch written, or the move to this state. */
  stalestUpdatedAt: Date;
}

/**
 * The reads every durable operation's table has (an erasure's, a trash operation's; see
 * bulk-operation.ts): by id, the author's unfinished one, and by id under lock for a batch; and
 * the insert that the unique `active_author` may refuse.
 */
export abstract class BulkOperationRepository<
  E extends BulkOperationColumns & { state: string },
  S extends E['state'] = E['state'],
> {
  protected readonly rows: Repository<E>;

  protected constructor(
    protected readonly dataSource: DataSource,
    private readonly entity: EntityTarget<E>,
    /** The states of an operation that is not done (each table's index on `state` reads them). */
    readonly unfinishedStates: readonly S[],
  ) {
    this.rows = dataSource.getRepository(entity);
  }

  /**
   * Per unfinished state with at least one operation: how many, the oldest start and the least
   * recent progress. Unfinished operations are few (one per author at most), read through the
   * table's index on `state`.
   */
  async unfinishedSummary(): Promise<UnfinishedOperations<S>[]> {
    const rows: { state: S; count: number | string; oldestStartedAt: Date; stalestUpdatedAt: Date }[] =
      await this.dataSource.query(
        `SELECT state, COUNT(*) AS count, MIN(started_at) AS oldestStartedAt, MIN(updated_at) AS stalestUpdatedAt
         FROM ${this.rows.metadata.tableName} WHERE state IN (?) GROUP BY state`,
        [this.unfinishedStates],
      );
    return rows.map((row) => ({ ...row, count: Number(row.count) }));
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

  /**
   * Runs an operation's insert, which the unique `active_author` refuses while the author has an
   * unfinished one, whichever request comes first. Returns whether it was written.
   */
  protected async insertUnlessActiveRow(sql: string, parameters: unknown[]): Promise<boolean> {
    try {
      await this.dataSource.query(sql, parameters);
      return true;
    } catch (error) {
      if (isMysqlError(error, MYSQL_ERRORS.duplicateKey)) return false;
      throw error;
    }
  }
}
