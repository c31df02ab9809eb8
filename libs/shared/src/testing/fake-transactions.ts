import type { DataSource, EntityManager } from 'typeorm';

/**
 * For service specs with fakes: a data source whose transactions hand out a dummy manager and,
 * when their work throws, put `table` back as it was, as MySQL's rollback would.
 */
export function fakeTransactions<K, V>(table: Map<K, V>): DataSource {
  const dataSource = {
    transaction: async <T>(work: (manager: EntityManager) => Promise<T>): Promise<T> => {
      const before = new Map(table);
      try {
        return await work({} as EntityManager);
      } catch (error) {
        table.clear();
        before.forEach((row, id) => table.set(id, row));
        throw error;
      }
    },
  };
  return dataSource as unknown as DataSource;
}
