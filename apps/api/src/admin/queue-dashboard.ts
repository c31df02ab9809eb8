import { timingSafeEqual } from 'node:crypto';
import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { FastifyAdapter } from '@bull-board/fastify';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppConfig } from '@app/shared/config/config.schema';
import { problemBody, sendProblem } from '@app/shared/http/problem';
import { acceptBodies } from '@app/shared/http-app';
import { JobQueues } from '@app/shared/queue/job-queues.service';
import { RedisRateLimits } from '@app/shared/redis/redis-rate-limits';
import { verifiedCaller } from '../auth/authenticate';
import { DashboardLoginLimit } from './dashboard-login-limit';
import { DASHBOARD_PATH } from './dashboard-path';

/** The largest body a dashboard action takes: a job's data as an admin edits it. */
const DASHBOARD_BODY_LIMIT = 64 * 1024;

function sameSecret(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

function basicCredentials(request: FastifyRequest): [string, string] | null {
  const match = /^basic\s+(\S+)$/i.exec(request.headers.authorization ?? '');
  if (!match) return null;
  const decoded = Buffer.from(match[1]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  return colon < 0 ? null : [decoded.slice(0, colon), decoded.slice(colon + 1)];
}

/**
 * Bull Board runs as a Fastify plugin, outside Nest's guards, so it gets its own gate: the
 * dashboard credentials from the environment (HTTP Basic), or an admin JWT in the Authorization
 * header or the `admin_token` cookie, verified by the same passport strategy as the API. An
 * address that sent too many wrong passwords gets 429 for any password until its window ends,
 * the right one included, so guessing learns nothing meanwhile.
 */
function adminOnly(config: AppConfig, logins: DashboardLoginLimit) {
  // An early answer returns the reply, so Fastify goes no further.
  return async (request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply | undefined> => {
    const refuse = (status: 401 | 403, detail: string) =>
      sendProblem(
        reply,
        problemBody(status, detail),
        status === 401 ? { 'WWW-Authenticate': ['Basic realm="queues"', 'Bearer'] } : {},
      );
    const basic = basicCredentials(request);
    if (basic) {
      const blocked = await logins.attempt(request.ip);
      if (blocked > 0) {
        return sendProblem(
          reply,
          problemBody(429, `Too many wrong dashboard credentials: try again in ${blocked} s.`),
          { 'Retry-After': String(blocked) },
        );
      }
      const ok =
        config.ADMIN_USERNAME !== undefined &&
        config.ADMIN_PASSWORD !== undefined &&
        sameSecret(basic[0], config.ADMIN_USERNAME) &&
        sameSecret(basic[1], config.ADMIN_PASSWORD);
      if (!ok) return refuse(401, 'Wrong dashboard credentials.');
      await logins.succeeded(request.ip);
      return undefined;
    }
    const user = await verifiedCaller(request, reply);
    if (!user) return refuse(401, 'Admin credentials are required.');
    if (!user.roles.includes('admin')) return refuse(403, 'The queue dashboard is for admins.');
    return undefined;
  };
}

/** Mounts the queue dashboard for every queue at /admin/queues. */
export async function mountQueueDashboard(app: NestFastifyApplication, config: AppConfig): Promise<void> {
  const adapter = new FastifyAdapter();
  adapter.setBasePath(DASHBOARD_PATH);
  const queues = app.get(JobQueues);
  // Each receiver's queue says whose it is: its URL as rows show it (no credentials, no query values).
  const receivers = new Map(queues.receiverQueues().map((receiver) => [receiver.name as string, receiver]));
  createBullBoard({
    queues: queues.all().map((queue) => {
      const receiver = receivers.get(queue.name);
      return new BullMQAdapter(queue, {
        readOnlyMode: false,
        ...(receiver ? { description: `webhook deliveries to ${receiver.shownUrl}` } : {}),
      });
    }),
    serverAdapter: adapter,
  });
  // A scope of its own: the gate covers the dashboard's routes and nothing else. Its actions (a
  // job's data, a queue's limits) take small JSON bodies, read only once the gate let them in.
  await app.register(async (scope: FastifyInstance) => {
    scope.addHook('onRequest', adminOnly(config, new DashboardLoginLimit(app.get(RedisRateLimits))));
    acceptBodies(scope, DASHBOARD_BODY_LIMIT);
    scope.addContentTypeParser(
      'application/json',
      { parseAs: 'string' },
      scope.getDefaultJsonParser('error', 'error'),
    );
    await scope.register(adapter.registerPlugin(), { prefix: DASHBOARD_PATH });
  });
}
