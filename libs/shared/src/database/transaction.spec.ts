import type { EntityManager } from 'typeorm';
import { DEADLOCK_RETRIES, transactionRetryingDeadlocks } from './transaction';

const deadlock = Object.assign(new Error('Deadlock found'), { driverError: { errno: 1213 } });

/** A data source whose transactions fail with the given errors first, then run the work. */
function failingFirst(...errors: Error[]) {
  const runs = { count: 0 };
  return {
    runs,
    dataSource: {
      transaction: <T>(work: (manager: EntityManager) => Promise<T>): Promise<T> => {
        runs.count += 1;
        const error = errors.shift();
        return error ? Promise.reject(error) : work({} as EntityManager);
      },
    } as never,
  };
}

describe('transactionRetryingDeadlocks', () => {
  it('runs the work again when MySQL chose it as a deadlock victim', async () => {
    const { runs, dataSource } = failingFirst(deadlock, deadlock);
    await expect(transactionRetryingDeadlocks(dataSource, () => Promise.resolve('done'))).resolves.toBe(
      'done',
    );
    expect(runs.count).toBe(3);
  });

  it('gives up after its retries, with the deadlock', async () => {
    const { runs, dataSource } = failingFirst(
      ...Array.from({ length: DEADLOCK_RETRIES + 1 }, () => deadlock),
    );
    await expect(transactionRetryingDeadlocks(dataSource, () => Promise.resolve('done'))).rejects.toBe(
      deadlock,
    );
    expect(runs.count).toBe(DEADLOCK_RETRIES + 1);
  });

  it('never runs again after any other failure', async () => {
    const duplicate = Object.assign(new Error('Duplicate entry'), { driverError: { errno: 1062 } });
    const { runs, dataSource } = failingFirst(duplicate);
    await expect(transactionRetryingDeadlocks(dataSource, () => Promise.resolve('done'))).rejects.toBe(
      duplicate,
    );
    expect(runs.count).toBe(1);
  });
});
