import { rmSync } from 'node:fs';
import globalSetup from '../support/global-setup';
import { RESULTS_FILE } from './results';

export default async function chaosSetup(config: { maxWorkers: number }): Promise<void> {
  rmSync(RESULTS_FILE, { force: true });
  await globalSetup(config);
}
