import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CreateBucketCommand, HeadBucketCommand, S3Client } from '@aws-sdk/client-s3';
import { layout, PINNED, type ServicesConfig } from './config.ts';
import { downloadChecked, mavenUrl } from './downloads.ts';
import { requireJava } from './elasticsearch-install.ts';
import { checkSameUrl, launch, livePid, stopPidFile, waitReady, writePidFile } from './processes.ts';
import { fail, log, upLine } from './report.ts';
import { base, isLocalHost, parseUrl } from './urls.ts';
import { httpGet } from './wait.ts';

export const S3PROXY_PATTERN = /s3proxy/;

/** Something answers HTTP there; `s3` when it tags its answer as an S3 server does (a request id). */
async function s3Answer(endpoint: string): Promise<{ s3: boolean } | undefined> {
  const answer = await httpGet(`${base(endpoint)}/`);
  return answer && { s3: answer.headers.has('x-amz-request-id') };
}

export async function s3Answers(endpoint: string): Promise<boolean> {
  return (await s3Answer(endpoint)) !== undefined;
}

/** Downloads (once) the S3Proxy jar with its dependencies from Maven Central: one `java -jar` is the whole install. */
async function ensureJar(config: ServicesConfig): Promise<string> {
  const jar = layout(config).s3proxyJar;
  if (existsSync(jar)) return jar;
  const url = mavenUrl({
    group: 'org.gaul',
    artifact: 's3proxy',
    version: config.s3proxyVersion,
    classifier: 'jar-with-dependencies',
    extension: 'jar',
  });
  const pinned = config.s3proxyVersion === PINNED.s3proxy.version ? PINNED.s3proxy.sha1 : undefined;
  await downloadChecked(url, jar, { sha1: pinned });
  return jar;
}

async function startS3proxy(config: ServicesConfig): Promise<void> {
  const endpoint = base(config.s3Endpoint);
  const { host, port, scheme } = parseUrl(endpoint);
  if (!isLocalHost(host)) fail(`S3 is not answering at ${endpoint}, which is not a local address`);
  if (scheme !== 'http') fail(`can only start a plain-http S3Proxy (S3_ENDPOINT=${endpoint})`);
  const java = join(requireJava(config), 'bin/java');
  const jar = await ensureJar(config);
  const paths = layout(config);
  mkdirSync(paths.s3proxyDir, { recursive: true });
  mkdirSync(paths.s3DataDir, { recursive: true });
  const properties = join(paths.s3proxyDir, 's3proxy.conf');
  // Written at every start so changed credentials and ports take effect; it holds the secret, hence 0600.
  writeFileSync(
    properties,
    [
      `s3proxy.endpoint=http://${host}:${port || 80}`,
      's3proxy.authorization=aws-v2-or-v4',
      `s3proxy.identity=${config.s3AccessKeyId}`,
      `s3proxy.credential=${config.s3SecretAccessKey}`,
      's3proxy.virtual-host=',
      'jclouds.provider=filesystem',
      `jclouds.identity=${config.s3AccessKeyId}`,
      `jclouds.credential=${config.s3SecretAccessKey}`,
      `jclouds.filesystem.basedir=${paths.s3DataDir}`,
      '',
    ].join('\n'),
    { mode: 0o600 },
  );
  log(`starting S3Proxy ${config.s3proxyVersion} on ${host}:${port || 80}`);
  const logFile = join(paths.logs, 's3proxy.log');
  writePidFile(paths.s3proxyUrl, endpoint);
  const server = launch({
    command: java,
    args: ['-Xms64m', `-Xmx${config.s3proxyHeap}`, '-jar', jar, '--properties', properties],
    logFile,
    daemon: true,
    pidFile: paths.s3proxyPid,
  });
  await waitReady(server, `S3Proxy did not come up on ${endpoint}`, () => s3Answers(endpoint), {
    timeoutMs: 60_000,
    logs: [logFile],
  });
}

/** The bucket exists (created when missing), checked with signed requests, so a reused server is checked too. */
async function ensureBucket(config: ServicesConfig): Promise<void> {
  const client = new S3Client({
    endpoint: config.s3Endpoint,
    region: config.s3Region,
    forcePathStyle: true,
    credentials: { accessKeyId: config.s3AccessKeyId, secretAccessKey: config.s3SecretAccessKey },
    maxAttempts: 2,
  });
  const status = (error: unknown) =>
    (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
  try {
    await client.send(new HeadBucketCommand({ Bucket: config.s3Bucket }));
  } catch (error) {
    if (status(error) !== 404) {
      fail(
        `bucket '${config.s3Bucket}' is not usable at ${base(config.s3Endpoint)} (HTTP ${status(error) ?? 'no answer'}); check S3_ACCESS_KEY_ID/S3_SECRET_ACCESS_KEY`,
      );
    }
    log(`creating bucket ${config.s3Bucket}`);
    await client
      .send(new CreateBucketCommand({ Bucket: config.s3Bucket }))
      .catch((created: unknown) =>
        fail(
          `bucket '${config.s3Bucket}' could not be created at ${base(config.s3Endpoint)} (HTTP ${status(created) ?? 'no answer'})`,
        ),
      );
  } finally {
    client.destroy();
  }
}

export async function s3proxyUp(config: ServicesConfig): Promise<string> {
  const endpoint = base(config.s3Endpoint);
  const paths = layout(config);
  let state: 'started' | 'reused' = 'reused';
  const answer = await s3Answer(endpoint);
  if (answer) {
    if (!answer.s3)
      fail(`port ${parseUrl(endpoint).host}:${parseUrl(endpoint).port} answers HTTP but is not an S3 server`);
  } else if (livePid(paths.s3proxyPid, S3PROXY_PATTERN) !== undefined) {
    checkSameUrl(paths.s3proxyUrl, endpoint, 's3proxy');
    await waitReady(
      undefined,
      `S3Proxy is running but not answering on ${endpoint}`,
      () => s3Answers(endpoint),
      { timeoutMs: 60_000 },
    );
  } else {
    await startS3proxy(config);
    state = 'started';
  }
  await ensureBucket(config);
  return upLine('s3proxy', state, `${endpoint}/${config.s3Bucket}`);
}

export async function s3proxyDown(config: ServicesConfig): Promise<string> {
  const paths = layout(config);
  const line = await stopPidFile('s3proxy', paths.s3proxyPid, S3PROXY_PATTERN, 20);
  rmSync(paths.s3proxyUrl, { force: true });
  return line;
}
