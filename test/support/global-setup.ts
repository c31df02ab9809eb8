import { execFileSync } from 'node:child_process';
import { resolve } from 'node:path';
import './test-env';
// Jest loads global setup outside its module map (moduleNameMapper): relative paths, not aliases.
import { loadConfig } from '../../libs/shared/src/config/load-config';
import { migrate } from '../../libs/shared/src/data-source';

export const ROOT = resolve(__dirname, '../..');

/** Starts the local services when they are not running (reusing them when they are), then migrates. */
export default async function globalSetup(): Promise<void> {
  execFileSync('bash', [resolve(ROOT, 'scripts/services.sh'), 'up'], { stdio: 'inherit' });
  await migrate(loadConfig());
}
