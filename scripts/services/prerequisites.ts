import { execFileSync, spawnSync } from 'node:child_process';
import { accessSync, constants, mkdirSync, openSync, closeSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { MIN_JAVA } from './config.ts';
import { findJavaHome } from './java.ts';
import { fail, log } from './report.ts';
import { logTail } from './processes.ts';

/** What starting a service needs installed on this machine. */
export type Need = 'mysql-server' | 'redis-server' | 'java';

const NEEDS: Record<Need, { what: string; commands: string[]; apt: string[] }> = {
  'mysql-server': {
    what: 'a MariaDB server (mariadbd)',
    commands: ['mariadbd', 'mysqld'],
    apt: ['mariadb-server'],
  },
  'redis-server': { what: 'Redis (redis-server)', commands: ['redis-server'], apt: ['redis-server'] },
  // Newest first: Debian 13 and Ubuntu 24.04 have these; Debian 12 has neither (only openjdk-17).
  java: {
    what: `a JDK of at least ${MIN_JAVA} (Elasticsearch 9 and S3Proxy run on it)`,
    commands: [],
    apt: ['openjdk-25-jdk-headless', 'openjdk-21-jdk-headless'],
  },
};

/** What deciding and installing looks at and does; the machine's own by default, fakes in unit tests. */
export interface Machine {
  isRoot: boolean;
  /** Debian or a derivative, with apt-get. */
  hasApt: boolean;
  /** An executable of that name on PATH or in /usr/sbin. */
  has(command: string): boolean;
  javaHome(): string | undefined;
  aptUpdate(): void;
  /** Whether apt can install that package here (it has a candidate version). */
  aptHas(pkg: string): boolean;
  aptInstall(packages: string[]): void;
}

export function missing(needs: Need[], machine: Machine): Need[] {
  return [...new Set(needs)].filter((need) =>
    need === 'java' ? machine.javaHome() === undefined : !NEEDS[need].commands.some((c) => machine.has(c)),
  );
}

const JAVA_ADVICE =
  `install a JDK of ${MIN_JAVA} or newer (Eclipse Temurin 21 or 25; openjdk-21-jdk-headless on Debian 13 or Ubuntu 24.04) ` +
  'under /usr/lib/jvm, or set ES_JAVA_HOME to one';

/** The one message that says exactly what to install, when this run cannot install it itself. */
export function whatToInstall(gaps: Need[], machine: Pick<Machine, 'isRoot' | 'hasApt'>): string {
  const list = gaps.map((need) => NEEDS[need].what).join(', ');
  const packages = gaps.filter((need) => need !== 'java').flatMap((need) => NEEDS[need].apt);
  const steps: string[] = [];
  if (packages.length > 0) {
    steps.push(
      machine.hasApt
        ? `run \`sudo apt-get install -y ${packages.join(' ')}\`${machine.isRoot ? '' : ' (or run this as root, which installs them itself)'}`
        : `install ${packages.join(' and ')} with this machine's package manager`,
    );
  }
  if (gaps.includes('java')) steps.push(JAVA_ADVICE);
  const elsewhere = gaps.some((need) => need !== 'java')
    ? ', or point DATABASE_URL / REDIS_URL at servers that run'
    : '';
  return `missing ${list}: ${steps.join('; ')}${elsewhere}`;
}

/**
 * Installs with apt-get whatever starting the chosen services needs and this machine lacks, when
 * this is root on Debian; otherwise stops at once saying exactly what to install. A JDK of at least
 * 21 is installed only if apt offers one (Debian 12's does not): else the message says where to get one.
 */
export function ensureInstalled(needs: Need[], machine: Machine): void {
  const gaps = missing(needs, machine);
  if (gaps.length === 0) return;
  if (!machine.isRoot || !machine.hasApt) fail(whatToInstall(gaps, machine));
  machine.aptUpdate();
  const packages = gaps.flatMap((need) =>
    need === 'java' ? NEEDS.java.apt.filter((pkg) => machine.aptHas(pkg)).slice(0, 1) : NEEDS[need].apt,
  );
  if (gaps.includes('java') && !NEEDS.java.apt.some((pkg) => packages.includes(pkg))) {
    fail(
      `missing ${NEEDS.java.what}, and apt offers none on this machine (Debian 12 has only openjdk-17): ${JAVA_ADVICE}`,
    );
  }
  log(`installing ${packages.join(' ')} with apt-get`);
  machine.aptInstall(packages);
  const still = missing(gaps, machine);
  if (still.length > 0)
    fail(
      `apt-get installed ${packages.join(' ')}, yet ${still.map((n) => NEEDS[n].what).join(', ')} is still missing`,
    );
}

const SEARCH_PATH = () => [...(process.env.PATH ?? '').split(':'), '/usr/sbin', '/usr/local/sbin', '/sbin'];

function executable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** The path of an executable of that name on PATH or in the sbin directories a non-root PATH leaves out. */
export function findCommand(command: string): string | undefined {
  return SEARCH_PATH()
    .filter((dir) => dir !== '')
    .map((dir) => join(dir, command))
    .find(executable);
}

/** This machine, with apt-get's output kept in `logDir/apt.log` (its end is shown when it fails). */
export function thisMachine(javaHomeOverride: string | undefined, logDir: string): Machine {
  const aptLog = join(logDir, 'apt.log');
  const apt = (args: string[]) => {
    mkdirSync(logDir, { recursive: true });
    const output = openSync(aptLog, 'a');
    try {
      const result = spawnSync('apt-get', args, {
        stdio: ['ignore', output, output],
        env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
      });
      if (result.status !== 0) fail(`apt-get ${args.join(' ')} failed\n${logTail(aptLog, 20)}`);
    } finally {
      closeSync(output);
    }
  };
  let osRelease = '';
  try {
    osRelease = readFileSync('/etc/os-release', 'utf8');
  } catch {
    // Not a Linux with os-release: no apt either.
  }
  return {
    isRoot: process.getuid?.() === 0,
    hasApt: /^ID(_LIKE)?=.*\b(debian|ubuntu)\b/m.test(osRelease) && findCommand('apt-get') !== undefined,
    has: (command) => findCommand(command) !== undefined,
    javaHome: () => findJavaHome(javaHomeOverride),
    aptUpdate: () => apt(['update', '-q']),
    aptHas: (pkg) => {
      try {
        const policy = execFileSync('apt-cache', ['policy', pkg], { encoding: 'utf8' });
        return /Candidate: (?!\(none\))\S+/.test(policy);
      } catch {
        return false;
      }
    },
    aptInstall: (packages) => apt(['install', '-y', '-q', '--no-install-recommends', ...packages]),
  };
}
