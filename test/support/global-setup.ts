import { execFileSync } from 'node:child_process';
import { resolve } from 'node:path';
import './test-env';
import { loadConfig } from '@app/shared/config/load-config';
import { migrate } from '@app/shared/data-source';

export const ROOT = resolve(__dirname, '../..');

/** Starts the local services when they are not running (reusing them when they are), then migrates. */
export default async function globalSetup(): Promise<void> {
  execFileSync('bash', [resolve(ROOT, 'scripts/services.sh'), 'up'], { stdio: 'inherit' });
  await migrate(loadConfig());
}
