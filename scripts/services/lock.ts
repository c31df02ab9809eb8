import { spawn } from 'node:child_process';
import { closeSync, mkdirSync, openSync } from 'node:fs';
import { join } from 'node:path';
import { fail, log } from './report.ts';

/** Runs `flock` on the open file `fd`; resolves whether it took the lock. */
function flock(fd: number, args: string[]): Promise<boolean> {
  return new Promise((done, reject) => {
    // The lock belongs to the open file, which this process keeps: it outlives flock itself and
    // is released when this process closes the file or ends, however it ends.
    const child = spawn('flock', [...args, '3'], { stdio: ['ignore', 'ignore', 'inherit', fd] });
    child.once('error', reject);
    child.once('exit', (code) => done(code === 0));
  });
}

/**
 * One `up` or `down` at a time per services directory: two `up`s started together must not start
 * two of anything. The second waits (up to 300 s) and then finds what the first started.
 */
export async function withLock<T>(servicesDir: string, work: () => Promise<T>): Promise<T> {
  mkdirSync(servicesDir, { recursive: true });
  const file = join(servicesDir, '.services.lock');
  const fd = openSync(file, 'w');
  try {
    if (!(await flock(fd, ['-n']))) {
      log('waiting for another services run to finish');
      if (!(await flock(fd, ['-w', '300']))) fail(`another services run still holds ${file} after 300s`);
    }
    return await work();
  } finally {
    closeSync(fd);
  }
}
