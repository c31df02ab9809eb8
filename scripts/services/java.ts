import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, realpathSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { MIN_JAVA } from './config.ts';

/** What finding a Java looks at; the real machine's by default, a test's own in unit tests. */
export interface JavaProbes {
  /** The directories under /usr/lib/jvm. */
  jvmDirs(): string[];
  /** The JAVA_HOME of the `java` on PATH, if any. */
  pathJavaHome(): string | undefined;
  /** The major version a JDK's `release` file names, if it has a `bin/java`. */
  major(home: string): number | undefined;
}

export const machineJava: JavaProbes = {
  jvmDirs: () => {
    try {
      return readdirSync('/usr/lib/jvm').map((name) => join('/usr/lib/jvm', name));
    } catch {
      return [];
    }
  },
  pathJavaHome: () => {
    try {
      const java = execFileSync('sh', ['-c', 'command -v java'], { encoding: 'utf8' }).trim();
      return java ? dirname(dirname(realpathSync(java))) : undefined;
    } catch {
      return undefined;
    }
  },
  major: (home) => {
    if (!existsSync(join(home, 'bin/java'))) return undefined;
    try {
      const match = /^JAVA_VERSION="(\d+)/m.exec(readFileSync(join(home, 'release'), 'utf8'));
      return match ? Number(match[1]) : undefined;
    } catch {
      return undefined;
    }
  },
};

/**
 * The Java for Elasticsearch and S3Proxy: `ES_JAVA_HOME` when set, else the newest JDK of at least
 * 21 under /usr/lib/jvm or behind the `java` on PATH (Temurin 25 on these machines; Debian 12's own
 * openjdk-17 is too old). `undefined` when there is none.
 */
export function findJavaHome(
  explicit: string | undefined,
  probes: JavaProbes = machineJava,
): string | undefined {
  if (explicit) return explicit;
  const pathHome = probes.pathJavaHome();
  let best: { home: string; major: number } | undefined;
  for (const home of [...probes.jvmDirs(), ...(pathHome ? [pathHome] : [])]) {
    const major = probes.major(home);
    if (major !== undefined && major >= MIN_JAVA && major > (best?.major ?? 0)) best = { home, major };
  }
  return best?.home;
}
