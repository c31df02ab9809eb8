import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const ROOT = resolve(__dirname, '../..');

export interface RedoclyProblem {
  ruleId: string;
  severity: 'error' | 'warn';
  message: string;
  location: { pointer?: string }[];
}

export interface RedoclyReport {
  totals: { errors: number; warnings: number; ignored: number };
  problems: RedoclyProblem[];
}

/**
 * Lints a document with the Redocly CLI docs/api.md tells people to run, under the repository's
 * redocly.yaml, so the test and `npx redocly lint` can never disagree.
 */
export async function redoclyLint(document: unknown, timeoutMs = 60_000): Promise<RedoclyReport> {
  const dir = await mkdtemp(join(tmpdir(), 'openapi-lint-'));
  try {
    const file = join(dir, 'openapi.json');
    await writeFile(file, JSON.stringify(document));
    const cli = resolve(ROOT, 'node_modules/@redocly/cli/bin/cli.js');
    const args = [cli, 'lint', file, '--config', resolve(ROOT, 'redocly.yaml'), '--format', 'json'];
    const stdout = await new Promise<string>((done, fail) => {
      execFile(
        process.execPath,
        args,
        // Telemetry and the update check would reach the network on every run.
        {
          env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
          timeout: timeoutMs,
        },
        // Problems make the CLI exit 1; its report is on stdout either way.
        (error, out, err) => (out ? done(out) : fail(error ?? new Error(`redocly printed nothing: ${err}`))),
      );
    });
    return JSON.parse(stdout) as RedoclyReport;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** One line per problem, for a failing assertion's message. */
export function describeProblems(report: RedoclyReport): string {
  return report.problems
    .map((p) => `${p.severity} ${p.ruleId} at ${p.location[0]?.pointer ?? '?'}: ${p.message}`)
    .join('\n');
}
