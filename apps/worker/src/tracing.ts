// main.ts imports this second: after the heap rule's restart (an SDK started before it would be
// loaded for nothing, then thrown away with the program it replaces), and before anything the
// SDK's instrumentations patch (node:http, Fastify, mysql2, ioredis, the AWS SDK, pino) is loaded.
// cli.ts does not: its commands run to an end in seconds or minutes, not a service to follow.
import { startTracingOrExit } from '@app/shared/telemetry/tracing';

startTracingOrExit('video-worker');
