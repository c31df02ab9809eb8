import { ensureInstalled, missing, whatToInstall, type Machine } from './prerequisites.ts';

/** A machine whose commands, Java and apt candidates are the test's; records what apt was asked. */
interface FakeMachine {
  root?: boolean;
  apt?: boolean;
  commands?: string[];
  java?: string;
  candidates?: string[];
  installs?: Record<string, { command?: string; java?: string }>;
}

function machine({
  root = true,
  apt = true,
  commands = [],
  java,
  candidates = [],
  installs = {},
}: FakeMachine = {}) {
  const calls: string[][] = [];
  const present = new Set(commands);
  let javaHome = java;
  const fake: Machine = {
    isRoot: root,
    hasApt: apt,
    has: (command) => present.has(command),
    javaHome: () => javaHome,
    aptUpdate: () => calls.push(['update']),
    aptHas: (pkg) => candidates.includes(pkg),
    aptInstall: (packages) => {
      calls.push(['install', ...packages]);
      for (const pkg of packages) {
        if (installs[pkg]?.command) present.add(installs[pkg].command);
        if (installs[pkg]?.java) javaHome = installs[pkg].java;
      }
    },
  };
  return { fake, calls };
}

const INSTALLS = {
  'mariadb-server': { command: 'mariadbd' },
  'redis-server': { command: 'redis-server' },
  'openjdk-21-jdk-headless': { java: '/usr/lib/jvm/java-21-openjdk-amd64' },
  'openjdk-25-jdk-headless': { java: '/usr/lib/jvm/java-25-openjdk-amd64' },
};

describe('installing what starting the services needs', () => {
  // The tool's progress lines (`[services] …`) are for a person at a terminal, not for the test's output.
  beforeEach(() => jest.spyOn(process.stderr, 'write').mockImplementation(() => true));
  afterEach(() => jest.restoreAllMocks());
  it('does nothing when everything is there (a MySQL server, Redis, a JDK of at least 21)', () => {
    const { fake, calls } = machine({
      commands: ['mysqld', 'redis-server'],
      java: '/usr/lib/jvm/temurin-25',
    });
    ensureInstalled(['mysql-server', 'redis-server', 'java'], fake);
    expect(calls).toEqual([]);
  });

  it('as root on Debian, installs every missing package in one apt-get, the newest JDK apt offers', () => {
    const { fake, calls } = machine({
      candidates: ['openjdk-21-jdk-headless', 'openjdk-25-jdk-headless'],
      installs: INSTALLS,
    });
    ensureInstalled(['mysql-server', 'redis-server', 'java', 'java'], fake);
    expect(calls).toEqual([
      ['update'],
      ['install', 'mariadb-server', 'redis-server', 'openjdk-25-jdk-headless'],
    ]);
  });

  it('on Debian 12 (no JDK of 21 in apt) says at once where to get one, installing nothing', () => {
    const { fake, calls } = machine({ candidates: [], installs: INSTALLS });
    expect(() => ensureInstalled(['redis-server', 'java'], fake)).toThrow(
      /missing a JDK of at least 21 .*apt offers none on this machine \(Debian 12 has only openjdk-17\): install a JDK of 21 or newer \(Eclipse Temurin/,
    );
    expect(calls).toEqual([['update']]);
  });

  it('not root: says exactly what to install, and runs nothing', () => {
    const { fake, calls } = machine({ root: false });
    expect(() => ensureInstalled(['mysql-server', 'redis-server'], fake)).toThrow(
      'missing a MariaDB server (mariadbd), Redis (redis-server): run `sudo apt-get install -y mariadb-server redis-server` (or run this as root, which installs them itself), or point DATABASE_URL / REDIS_URL at servers that run',
    );
    expect(calls).toEqual([]);
  });

  it('not Debian: names the packages for the machine own package manager, and the JDK', () => {
    const { fake } = machine({ apt: false, commands: ['mariadbd'] });
    expect(() => ensureInstalled(['mysql-server', 'redis-server', 'java'], fake)).toThrow(
      /^missing Redis \(redis-server\), a JDK of at least 21 .*: install redis-server with this machine's package manager; install a JDK of 21 or newer/,
    );
  });

  it('fails when apt-get ran yet the server is still missing', () => {
    const { fake } = machine({ installs: {} });
    expect(() => ensureInstalled(['redis-server'], fake)).toThrow(
      'apt-get installed redis-server, yet Redis (redis-server) is still missing',
    );
  });

  it('counts mysqld as a MySQL server as well as mariadbd', () => {
    expect(missing(['mysql-server'], machine({ commands: ['mysqld'] }).fake)).toEqual([]);
    expect(whatToInstall(['java'], { isRoot: true, hasApt: true })).toMatch(/set ES_JAVA_HOME to one$/);
  });
});
