import type { DataSource, EntityManager } from 'typeorm';

/** What a fake keeps its rows in: a table by key, or a log of records. */
type Store = Map<unknown, unknown> | unknown[];

/**
 * For service specs with fakes: a data source whose transactions hand out a dummy manager and,
 * when their work throws, put every store back as it was, as MySQL's rollback would.
 */
export function fakeTransactions(...stores: Store[]): DataSource {
  const snapshot = (store: Store) => (Array.isArray(store) ? [...store] : new Map(store));
  const restore = (store: Store, before: Store) => {
    if (Array.isArray(store)) store.splice(0, store.length, ...(before as unknown[]));
    else {
      store.clear();
      (before as Map<unknown, unknown>).forEach((value, key) => store.set(key, value));
    }
  };
  const dataSource = {
    transaction: async <T>(work: (manager: EntityManager) => Promise<T>): Promise<T> => {
      const before = stores.map(snapshot);
      try {
        return await work({} as EntityManager);
      } catch (error) {
        stores.forEach((store, n) => restore(store, before[n]!));
        throw error;
      }
    },
  };
  return dataSource as unknown as DataSource;
}
