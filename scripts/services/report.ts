/**
 * How the services tool talks: progress on stderr behind `[services]`, results on stdout, and a
 * failure as one `ServicesError` whose message is all a person needs (the entry point prints it,
 * never a stack trace).
 */
export class ServicesError extends Error {
  override name = 'ServicesError';
}

export function fail(message: string): never {
  throw new ServicesError(message);
}

export function log(message: string): void {
  process.stderr.write(`[services] ${message}\n`);
}

/** A result line of `up`: name, started|reused, where it answers. */
export function upLine(name: string, state: 'started' | 'reused', url: string): string {
  return `${name.padEnd(14)} ${state.padEnd(8)} ${url}`;
}

/** A line of `status`: name, up|down, where, and who started it when it runs. */
export function statusLine(name: string, up: boolean, url: string, startedBy?: string): string {
  return up
    ? `${name.padEnd(14)} ${'up'.padEnd(5)} ${url} (${startedBy ?? 'external'})`
    : `${name.padEnd(14)} ${'down'.padEnd(5)} ${url}`;
}
