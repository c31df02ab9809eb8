// main.ts imports this second: after the heap rule's restart (an SDK started before it would be
// loaded for nothing, then thrown away with the program it replaces), and before anything the
// SDK's instrumentations patch (node:http, Fastify, mysql2, ioredis, the AWS SDK, pino) is loaded.
import { startTracingOrExit } from '@app/shared/telemetry/tracing';

startTracingOrExit('video-api');
