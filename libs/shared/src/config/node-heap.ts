/**
 * V8's heap for each kind of process: the one place these numbers are written (docs/architecture.md,
 * "V8's heap"). V8 sizes its heap once, as the process starts (`v8.setFlagsFromString` later
 * does not move the limit), so a process started without the rule's flags restarts itself with them
 * at once, in place and before it loads anything (`startWithHeapRule`): npm scripts, the Docker
 * image, the tests' and benches' helpers and an operator's own `node dist/…` all run the same heap.
 * A flag the operator gives, on the command line or in `NODE_OPTIONS`, is kept instead of the rule's.
 */
export const HEAP_RULE = {
  // Node 20's young generation, 16 MiB per semi-space: Node 24 sizes it from the machine's memory
  // (64 MiB on 24 GB), about 110 MB more RSS per API process under load for no CPU gained. The
  // old generation is left to V8: the API's heap holds a cache the operator sizes
  // (SEARCH_ITEM_CACHE_MB), and its CPU per search is the figure its benchmark compares.
  api: { 'max-semi-space-size': 16 },
  // The same young generation, and the old generation capped at 256 MiB. The worker and the CLI
  // (import, reindex, reconcile) stream in batches: their live heap, what a full collection
  // leaves, is flat at any catalogue size, and the cap leaves it room three times over. Without a
  // cap their peak RSS is mostly garbage: V8 lets the heap grow to several times the live heap
  // between full collections when the old generation may be large, and 256 is the largest cap
  // with the least growth (docs/benchmarks.md, peak RSS). A live heap that outgrows the cap stops the process
  // with "JavaScript heap out of memory" (exit 134; a worker's job goes back to the queue).
  worker: { 'max-semi-space-size': 16, 'max-old-space-size': 256 },
} as const satisfies Record<string, Record<string, number>>;

export type ProcessKind = keyof typeof HEAP_RULE;

/** `--max_old_space_size=1` and `--max-old-space-size 1` alike become `--max-old-space-size`. */
const flagName = (argument: string) => argument.replace(/=.*$/s, '').replaceAll('_', '-');

/** The rule's flags for `kind` that neither the command line (`execArgv`) nor `NODE_OPTIONS` gives. */
export function missingHeapFlags(kind: ProcessKind, execArgv: readonly string[], nodeOptions = ''): string[] {
  const given = new Set([...execArgv, ...nodeOptions.split(/\s+/)].map(flagName));
  // The old generation given as a share of the machine's memory takes precedence in Node itself.
  if (given.has('--max-old-space-size-percentage')) given.add('--max-old-space-size');
  return Object.entries(HEAP_RULE[kind])
    .filter(([name]) => !given.has(`--${name}`))
    .map(([name, value]) => `--${name}=${value}`);
}

/**
 * Restarts this process with the rule's missing flags, if any: `process.execve` replaces the program
 * and keeps the process id, standard streams and environment, so a supervisor, a pipe or
 * `/usr/bin/time` sees one process. Call it before anything else is loaded. Where Node has no
 * `execve` (Windows), the process goes on with V8's defaults and says so.
 */
export function startWithHeapRule(kind: ProcessKind): void {
  const missing = missingHeapFlags(kind, process.execArgv, process.env.NODE_OPTIONS);
  if (missing.length === 0) return;
  if (!process.execve) {
    process.emitWarning(`running without the heap rule (${missing.join(' ')}): put it in NODE_OPTIONS`);
    return;
  }
  process.execve(process.execPath, [
    process.argv0,
    ...missing,
    ...process.execArgv,
    ...process.argv.slice(1),
  ]);
}
