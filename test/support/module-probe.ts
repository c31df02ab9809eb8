import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { waitFor } from './processes';

/**
 * Every module a process resolves, through `require` or `import` alike (`module.registerHooks`),
 * written to `<dir>/<pid>.json` when the process gets SIGWINCH. A signal, not the exit: the
 * processes stop on SIGTERM by raising it again once Nest has closed, and a process that dies of a
 * signal runs no `exit` listener (nor may the probe listen to SIGTERM: that would keep the process
 * alive). Nest's shutdown hooks take SIGUSR2 among others and Node's inspector SIGUSR1; SIGWINCH
 * (a terminal resized) is ignored by default, and the processes' output is a pipe, not a terminal.
 */
const PROBE = `
const { registerHooks } = require('node:module');
const { writeFileSync } = require('node:fs');
const seen = new Set();
registerHooks({
  resolve(specifier, context, next) {
    const resolved = next(specifier, context);
    seen.add(resolved.url);
    return resolved;
  },
});
process.on('SIGWINCH', () => {
  const loaded = [...seen, ...Object.keys(require.cache).map((path) => 'file://' + path)];
  writeFileSync(process.env.MODULE_PROBE_DIR + '/' + process.pid + '.json', JSON.stringify(loaded));
});
`;

export interface ModuleProbe {
  /** The environment that loads the probe into a process (with whatever NODE_OPTIONS it had). */
  env: Record<string, string>;
  /** The packages (`name` or `@scope/name`) and the repository's own files the process has loaded so far. */
  loaded(pid: number, timeoutMs: number): Promise<{ packages: Set<string>; files: string[] }>;
  remove(): void;
}

/** The package a resolved URL belongs to: the path's last `node_modules/<name>` or `node_modules/@scope/name`. */
export function packageOf(url: string): string | undefined {
  return /.*\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url)?.[1];
}

export function startModuleProbe(): ModuleProbe {
  const dir = mkdtempSync(join(tmpdir(), 'module-probe-'));
  const probe = join(dir, 'probe.cjs');
  writeFileSync(probe, PROBE);
  return {
    env: { NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --require ${probe}`, MODULE_PROBE_DIR: dir },
    async loaded(pid, timeoutMs) {
      const file = join(dir, `${pid}.json`);
      rmSync(file, { force: true });
      process.kill(pid, 'SIGWINCH');
      const urls = await waitFor(
        `the module list of process ${pid}`,
        () =>
          Promise.resolve(
            existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as string[]) : undefined,
          ),
        { timeoutMs },
      );
      return {
        packages: new Set(urls.map(packageOf).filter((name) => name !== undefined)),
        files: [
          ...new Set(urls.filter((url) => url.startsWith('file://') && !url.includes('/node_modules/'))),
        ],
      };
    },
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}
