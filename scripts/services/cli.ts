/**
 * `bash scripts/services.sh up [SERVICE...] | down [SERVICE...] | status | install | left-running`
 * (and `npm run services:up|down|status`): the local MySQL (MariaDB), Redis, Elasticsearch and
 * S3Proxy. Node 24 runs this file as it is (type stripping), so nothing needs building first.
 */
import { dirname, resolve } from 'node:path';
import { servicesConfig } from './config.ts';
import { ServicesError } from './report.ts';
import { down, install, leftRunning, SERVICES, status, up } from './services.ts';

const USAGE = `usage: bash scripts/services.sh up [SERVICE...]     start (or reuse) services; default: all but elasticsearch-2
       bash scripts/services.sh down [SERVICE...]   stop what services:up started; default: all
       bash scripts/services.sh status              one line per service: NAME up|down URL
       bash scripts/services.sh install             download and unpack Elasticsearch without starting it
       bash scripts/services.sh left-running        what services:up started that still runs, and how to stop it
services: ${SERVICES.join(' ')}
elasticsearch-2 is a second Elasticsearch node that joins the first (port + 1, or the second URL
in ELASTICSEARCH_URL); ES_NODES=2 makes it one of the defaults. See docs/local-services.md.`;

async function main(argv: string[]): Promise<number> {
  // This file is scripts/services/cli.ts: the repository is two directories up.
  const root = resolve(dirname(process.argv[1]!), '../..');
  const [command, ...names] = argv;
  const print = (line: string) => console.log(line);
  if (!['up', 'down', 'status', 'install', 'left-running'].includes(command ?? '')) {
    console.error(USAGE);
    return 2;
  }
  const config = servicesConfig(root);
  switch (command) {
    case 'up':
      await up(config, names, print);
      return 0;
    case 'down':
      await down(config, names, print);
      return 0;
    case 'status':
      return status(config, print);
    case 'install': {
      const installed = await install(config);
      print(installed.home);
      print(installed.javaHome);
      return 0;
    }
    default:
      for (const line of leftRunning(config)) print(line);
      return 0;
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    // A ServicesError says all a person needs; anything else is a bug, whose stack helps.
    process.stderr.write(
      error instanceof ServicesError
        ? `[services] ERROR: ${error.message}\n`
        : `${(error as Error).stack ?? String(error)}\n`,
    );
    process.exitCode = 1;
  },
);
