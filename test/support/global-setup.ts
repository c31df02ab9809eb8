import './test-env';
import { loadConfig } from '../../libs/shared/src/config/load-config';
import { migrate } from '../../libs/shared/src/database/data-source';
import { servicesConfig } from '../../scripts/services/config.ts';
import { up } from '../../scripts/services/services.ts';
import { ROOT } from './processes';

export { ROOT };

/**
 * Starts the local services when they are not running (reusing them when they are), as
 * `npm run services:up` does, then migrates.
 */
export default async function globalSetup(): Promise<void> {
  await up(servicesConfig(ROOT), [], (line) => console.log(line));
  await migrate(loadConfig());
}
