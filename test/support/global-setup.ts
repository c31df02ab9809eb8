import { baseStores, workerStores } from './test-env';
// Jest loads global setup outside its module map (moduleNameMapper): relative paths, not aliases.
import { loadConfig } from '../../libs/shared/src/config/load-config';
import { migrate } from '../../libs/shared/src/data-source';
import { servicesConfig } from '../../scripts/services/config.ts';
import { up } from '../../scripts/services/services.ts';
import { ROOT } from './processes';

/**
 * Starts the local services when they are not running (reusing them when they are), as
 * `npm run services:up` does, then migrates the database of every jest worker this run has
 * (`workerStores`).
 */
export default async function globalSetup({ maxWorkers }: { maxWorkers: number }): Promise<void> {
  // Only what it had to start: `npm test` has just listed every service, reused ones included.
  await up(servicesConfig(ROOT), [], (line) => {
    if (line.split(/\s+/)[1] !== 'reused') console.log(line);
  });
  for (let worker = 1; worker <= maxWorkers; worker += 1) {
    await migrate(loadConfig({ ...process.env, ...workerStores(baseStores, worker) }));
  }
}
