import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { waitFor } from './processes';

/**
 * Every module a process resolves, through `require` or `import` alike (`module.registerHooks`),
 * with how many times each was resolved, written to `<dir>/<pid>.json` when the process gets
 * SIGWINCH. A `require` that Node answers from its cache of resolutions does not count (it never
 * reaches the hook); one it resolves again from disk does. A signal, not the exit: the
 * processes stop on SIGTERM by raising it again once Nest has closed, and a process that dies of a
 * signal runs no `exit` listener (nor may the probe listen to SIGTERM: that would keep the process
 * alive). Nest's shutdown hooks take SIGUSR2 among others and Node's inspector SIGUSR1; SIGWINCH
 * (a terminal resized) is ignored by default, and the processes' output is a pipe, not a terminal.
 */
const PROBE = `
const { registerHooks } = require('node:module');
const { renameSync, writeFileSync } = require('node:fs');
const resolutions = {};
registerHooks({
  resolve(specifier, context, next) {
    const resolved = next(specifier, context);
    resolutions[resolved.url] = (resolutions[resolved.url] ?? 0) + 1;
    return resolved;
  },
});
process.on('SIGWINCH', () => {
  const loaded = [...Object.keys(resolutions), ...Object.keys(require.cache).map((path) => 'file://' + path)];
  const file = process.env.MODULE_PROBE_DIR + '/' + process.pid + '.json';
  // Renamed into place whole: the reader never parses half a file.
  writeFileSync(file + '.part', JSON.stringify({ loaded, resolutions }));
  renameSync(file + '.part', file);
});
`;

export interface ModuleProbe {
  /** The environment that loads the probe into a process (with whatever NODE_OPTIONS it had). */
  env: Record<string, string>;
  /** The packages (`name` or `@scope/name`) and the repository's own files the process has loaded so far. */
  loaded(pid: number, timeoutMs: number): Promise<{ packages: Set<string>; files: string[] }>;
  /** How many times the process has resolved each module so far, by its URL. */
  resolutions(pid: number, timeoutMs: number): Promise<Record<string, number>>;
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
  /** What the process has resolved so far, written by the probe on SIGWINCH. */
  const snapshot = async (pid: number, timeoutMs: number) => {
    const file = join(dir, `${pid}.json`);
    rmSync(file, { force: true });
    process.kill(pid, 'SIGWINCH');
    return waitFor(
      `the module list of process ${pid}`,
      () =>
        Promise.resolve(
          existsSync(file)
            ? (JSON.parse(readFileSync(file, 'utf8')) as {
                loaded: string[];
                resolutions: Record<string, number>;
              })
            : undefined,
        ),
      { timeoutMs },
    );
  };
  return {
    env: { NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --require ${probe}`, MODULE_PROBE_DIR: dir },
    async loaded(pid, timeoutMs) {
      const urls = (await snapshot(pid, timeoutMs)).loaded;
      return {
        packages: new Set(urls.map(packageOf).filter((name) => name !== undefined)),
        files: [
          ...new Set(urls.filter((url) => url.startsWith('file://') && !url.includes('/node_modules/'))),
        ],
      };
    },
    resolutions: async (pid, timeoutMs) => (await snapshot(pid, timeoutMs)).resolutions,
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}
