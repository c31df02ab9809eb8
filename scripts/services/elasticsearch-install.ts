import { execFileSync, spawnSync } from 'node:child_process';
import {
  accessSync,
  chmodSync,
  constants,
  existsSync,
  mkdtempSync,
  readdirSync,
  renameSync,
  rmSync,
  statSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import { layout, PINNED, type ServicesConfig } from './config.ts';
import { downloadChecked, mavenUrl } from './downloads.ts';
import { findJavaHome } from './java.ts';
import { fail, log } from './report.ts';

/** An unpacked Elasticsearch and the Java it runs on. */
export interface ElasticsearchInstall {
  home: string;
  javaHome: string;
}

/** Who runs Elasticsearch: root runs it as an unprivileged user (it refuses root), anyone else as themselves. */
export interface EsOwner {
  runAs: string[];
  uid: number;
  gid: number;
  user: string;
}

export function requireJava(config: ServicesConfig): string {
  return (
    findJavaHome(config.javaHome) ??
    fail(
      `Elasticsearch ${config.esVersion} needs Java 21 or newer, and none was found (ES_JAVA_HOME, /usr/lib/jvm, PATH): install one (e.g. Temurin 25) or set ES_JAVA_HOME`,
    )
  );
}

/** Unzips with `unzip` when there is one, else with the JDK's `jar` (then restores bin/'s execute bits). */
function extract(zip: string, dest: string, javaHome: string): void {
  const unzip = spawnSync('unzip', ['-q', zip, '-d', dest], { stdio: ['ignore', 'ignore', 'inherit'] });
  if (unzip.error === undefined && unzip.status === 0) return;
  const jar = spawnSync(join(javaHome, 'bin/jar'), ['xf', zip], {
    cwd: dest,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  if (jar.status !== 0) fail(`could not extract ${zip}`);
}

function chmodTree(path: string): void {
  // The server runs as another user, so the (root-owned) install must be world-readable.
  const mode = statSync(path).mode;
  chmodSync(path, mode | (statSync(path).isDirectory() ? 0o555 : 0o444));
  if (statSync(path).isDirectory()) for (const entry of readdirSync(path)) chmodTree(join(path, entry));
}

/**
 * Downloads (once) the integ-test-zip from Maven Central, checked, and unpacks it into the cache:
 * a real Elasticsearch server with a minimal module set and no bundled JDK (docs/local-services.md).
 */
export async function ensureElasticsearchInstalled(config: ServicesConfig): Promise<ElasticsearchInstall> {
  const javaHome = requireJava(config);
  const { esHome, esZip } = layout(config);
  if (existsSync(join(esHome, 'bin/elasticsearch'))) return { home: esHome, javaHome };
  if (!existsSync(esZip)) {
    const url = mavenUrl({
      group: 'org.elasticsearch.distribution.integ-test-zip',
      artifact: 'elasticsearch',
      version: config.esVersion,
      extension: 'zip',
    });
    const pinned = config.esVersion === PINNED.elasticsearch.version ? PINNED.elasticsearch.sha1 : undefined;
    await downloadChecked(url, esZip, { sha1: pinned });
  }
  log(`extracting ${esZip}`);
  const tmp = mkdtempSync(join(config.cacheDir, '.extract.'));
  try {
    extract(esZip, tmp, javaHome);
    const unpacked = join(tmp, `elasticsearch-${config.esVersion}`);
    if (!existsSync(join(unpacked, 'bin'))) fail(`unexpected layout in ${esZip}`);
    for (const file of readdirSync(join(unpacked, 'bin'))) chmodSync(join(unpacked, 'bin', file), 0o755);
    chmodTree(unpacked);
    renameSync(unpacked, esHome);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
  return { home: esHome, javaHome };
}

/** Creates (as root) the locked system user that runs Elasticsearch; `undefined` when not root. */
export function esOwner(config: ServicesConfig): EsOwner | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const user = config.esUser;
  const id = (flag: string) =>
    Number(execFileSync('id', [flag, user], { stdio: ['ignore', 'pipe', 'ignore'] }));
  try {
    id('-u');
  } catch {
    log(`creating system user ${user}`);
    execFileSync('useradd', [
      '--system',
      '--user-group',
      '--no-create-home',
      '--home-dir',
      '/nonexistent',
      '--shell',
      '/usr/sbin/nologin',
      '--comment',
      'local Elasticsearch for videos backend',
      user,
    ]);
  }
  const uid = id('-u');
  const gid = id('-g');
  // setpriv rather than su/runuser: no PAM session involved.
  return { user, uid, gid, runAs: ['setpriv', `--reuid=${uid}`, `--regid=${gid}`, '--init-groups', '--'] };
}

/** Whether the owner (or this process) may do `test <flag> path`. */
function ownerCan(owner: EsOwner | undefined, flag: '-x' | '-w', path: string): boolean {
  if (!owner) {
    try {
      accessSync(path, flag === '-x' ? constants.X_OK : constants.W_OK);
      return true;
    } catch {
      return false;
    }
  }
  return spawnSync(owner.runAs[0]!, [...owner.runAs.slice(1), 'test', flag, path]).status === 0;
}

/**
 * A checkout in a private directory (mktemp -d makes them 0700) hides the install and the data
 * from the unprivileged user: let it pass through (o+x: enter, not list) the parents that stop it,
 * then fail clearly if it still cannot reach `paths`.
 */
export function grantTraverse(owner: EsOwner | undefined, paths: string[]): void {
  if (!owner) return;
  for (const path of paths) {
    for (let dir = dirname(path); dir !== '/'; dir = dirname(dir)) {
      if (!ownerCan(owner, '-x', dir)) {
        log(`letting ${owner.user} pass through ${dir} (chmod o+x)`);
        chmodSync(dir, statSync(dir).mode | 0o001);
      }
    }
  }
}

/** The install is reachable by the user that runs it, or this fails saying where to put it. */
export function ensureInstallReachable(install: ElasticsearchInstall, owner: EsOwner | undefined): void {
  grantTraverse(owner, [install.home]);
  if (!ownerCan(owner, '-x', join(install.home, 'bin/elasticsearch'))) {
    fail(
      `user ${owner?.user ?? 'this user'} cannot read ${install.home}; put SERVICES_CACHE somewhere world-readable`,
    );
  }
}

export function ensureWritable(owner: EsOwner | undefined, dir: string): void {
  if (!ownerCan(owner, '-w', dir))
    fail(`user ${owner?.user ?? 'this user'} cannot write ${dir}; put SERVICES_DIR somewhere it can reach`);
}
