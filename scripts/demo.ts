/**
 * `npm run demo`: the whole system with the sample data on this machine, no Docker needed.
 * Services up, migrations, the sample imported on first run, API and worker running, then a token
 * and ready-to-paste curl commands. Ctrl-C stops what this run started, nothing else. A bad
 * setting stops it with the message that names the setting, and nothing more.
 */
import { spawnSync } from 'node:child_process';
import { dirname, join, resolve } from 'node:path';
import { servicesConfig } from './services/config.ts';
import { launch, logTail, type ServerProcess } from './services/processes.ts';
import { ServicesError } from './services/report.ts';
import { down, states, up, type Service } from './services/services.ts';
import { httpGet, sleep, tcpOpen } from './services/wait.ts';

const root = resolve(dirname(process.argv[1]!), '..');
const defaults: Record<string, string> = {
  PORT: '3000',
  WORKER_PORT: '3001',
  METRICS_PORT: '9464',
  // A development-only key: set JWT_SECRET yourself for anything shared.
  JWT_SECRET: 'demo-only-secret-0123456789-abcdefghijklmnop',
  ADMIN_USERNAME: 'admin',
  ADMIN_PASSWORD: 'demo-dashboard-password',
};
for (const [name, value] of Object.entries(defaults)) process.env[name] ||= value;
const env = (name: string) => process.env[name]!;

const say = (message: string) => console.log(`\x1b[1m[demo]\x1b[0m ${message}`);
const logs = join(root, '.data/logs');
const ENTRY = {
  api: join(root, 'dist/apps/api/src/main.js'),
  worker: join(root, 'dist/apps/worker/src/main.js'),
  cli: join(root, 'dist/apps/worker/src/cli.js'),
};

/** A step that failed has said why on stderr already; the demo stops with its exit code. */
class Stop extends Error {
  readonly code: number;
  constructor(code: number) {
    super(`exit ${code}`);
    this.code = code;
  }
}

/** Runs a command to its end; its stderr shows as it comes, its stdout is returned or shown. */
function run(command: string, args: string[], capture = false): string {
  const result = spawnSync(command, args, {
    cwd: root,
    stdio: ['ignore', capture ? 'pipe' : 'inherit', 'inherit'],
    encoding: 'utf8',
  });
  if (result.status !== 0) throw new Stop(result.status ?? 1);
  return capture ? result.stdout : '';
}
const cli = (args: string[], capture = false) => run(process.execPath, [ENTRY.cli, ...args], capture);

const config = servicesConfig(root);
const children: ServerProcess[] = [];
let startedServices: Service[] = [];
let stopping: Promise<void> | undefined;

/** Stops the API, the worker and the services this run started, once. */
function cleanup(): Promise<void> {
  stopping ??= (async () => {
    say('stopping');
    await Promise.all(children.map((child) => child.stop('SIGTERM', 15_000)));
    if (startedServices.length > 0) await down(config, startedServices, (line) => console.log(line));
  })();
  return stopping;
}

async function main(): Promise<void> {
  for (const port of [env('PORT'), env('WORKER_PORT'), env('METRICS_PORT')]) {
    if (await tcpOpen('127.0.0.1', Number(port))) {
      console.error(
        `Port ${port} is already in use: stop what runs there, or set PORT / WORKER_PORT / METRICS_PORT.`,
      );
      throw new Stop(1);
    }
  }
  // Services that are down now are the ones this run starts, and so the ones Ctrl-C stops.
  startedServices = (await states(config)).filter((state) => !state.up).map((state) => state.name);
  await up(config, [], (line) => console.log(line));
  say('building');
  run('npm', ['run', 'build', '--silent']);
  // A bad setting stops here, with the message naming it, before anything reads the answer.
  const { videos } = JSON.parse(cli(['setup'], true)) as { videos: number };
  if (videos === 0) {
    say('first run: importing the sample (data/pyvideo.jsonl.gz)');
    cli(['import']);
  } else {
    say(`database already holds ${videos} videos (re-import with: npm run cli -- import)`);
  }

  for (const kind of ['api', 'worker'] as const) {
    children.push(
      launch({
        command: process.execPath,
        args: [ENTRY[kind]],
        logFile: join(logs, `${kind}.log`),
        cwd: root,
      }),
    );
  }
  for (const port of [env('PORT'), env('WORKER_PORT')]) {
    for (
      let tries = 0;
      (await httpGet(`http://127.0.0.1:${port}/health/ready`, 2_000))?.status !== 200;
      tries += 1
    ) {
      if (tries >= 120 || children.some((child) => child.exited())) {
        console.error([logTail(join(logs, 'api.log'), 20), logTail(join(logs, 'worker.log'), 20)].join('\n'));
        throw new Stop(1);
      }
      await sleep(500);
    }
  }

  const token = cli(['token', '--sub', 'demo-admin', '--role', 'admin', '--ttl', '12h'], true).trim();
  const base = `http://127.0.0.1:${env('PORT')}`;
  const search = await fetch(`${base}/api/videos/search?q=asyncio&limit=2`, {
    headers: { authorization: `Bearer ${token}` },
  });
  const [first = '<id>', second = '<id>'] = search.ok
    ? ((await search.json()) as { items: { id: string }[] }).items.map((item) => item.id)
    : [];
  console.log(`
API     ${base}           (logs: .data/logs/api.log)
Worker  http://127.0.0.1:${env('WORKER_PORT')}   (logs: .data/logs/worker.log)

Development token (admin, 12 h):
export TOKEN=${token}

Search:
curl -s -H "Authorization: Bearer $TOKEN" '${base}/api/videos/search?q=asyncio&limit=5'

Soft delete (30-day retention; retentionDays=N overrides):
curl -s -X DELETE -H "Authorization: Bearer $TOKEN" '${base}/api/videos/${first}'

Permanent delete (files removed from object storage by the worker):
curl -s -X DELETE -H "Authorization: Bearer $TOKEN" '${base}/api/videos/${second}?permanent=true'

Queue dashboard:  ${base}/admin/queues  (user ${env('ADMIN_USERNAME')}, password ${env('ADMIN_PASSWORD')})
API docs:         ${base}/docs
Metrics:          http://127.0.0.1:${env('METRICS_PORT')}/metrics (API) and http://127.0.0.1:${env('WORKER_PORT')}/metrics (worker)

A token for another caller: npm run cli -- token --sub <authorId> [--role admin] [--ttl 1h]
Ctrl-C stops the API, the worker and any service this run started.`);
  await Promise.all(children.map((child) => child.whenExited));
}

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => void cleanup().then(() => process.exit(signal === 'SIGINT' ? 130 : 143)));
}

main()
  .catch((error: unknown) => {
    if (error instanceof Stop) process.exitCode = error.code;
    else if (error instanceof ServicesError) {
      console.error(`[services] ERROR: ${error.message}`);
      process.exitCode = 1;
    } else throw error;
  })
  .finally(() => cleanup());
