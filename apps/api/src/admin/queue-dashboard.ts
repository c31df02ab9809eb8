import { timingSafeEqual } from 'node:crypto';
import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { ExpressAdapter } from '@bull-board/express';
import type { INestApplication } from '@nestjs/common';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import passport from 'passport';
import type { AppConfig } from '@app/shared/config/config.schema';
import { problemBody } from '@app/shared/http/problem';
import { JobQueues } from '@app/shared/queue/job-queues.service';
import type { Actor } from '@app/shared/video/video-lifecycle';

export const DASHBOARD_PATH = '/admin/queues';

function sameSecret(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

function basicCredentials(request: Request): [string, string] | null {
  const match = /^basic\s+(\S+)$/i.exec(request.headers.authorization ?? '');
  if (!match) return null;
  const decoded = Buffer.from(match[1]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  return colon < 0 ? null : [decoded.slice(0, colon), decoded.slice(colon + 1)];
}

/**
 * Bull Board is plain Express middleware, outside Nest's guards, so it gets its own gate: the
 * dashboard credentials from the environment (HTTP Basic), or an admin JWT in the Authorization
 * header or the `admin_token` cookie, verified by the same passport strategy as the API.
 */
function adminOnly(config: AppConfig) {
  return (request: Request, response: Response, next: NextFunction): void => {
    const refuse = (status: 401 | 403, detail: string) => {
      if (status === 401) response.setHeader('WWW-Authenticate', ['Basic realm="queues"', 'Bearer']);
      response
        .status(status)
        .type('application/problem+json')
        .send(JSON.stringify(problemBody(status, detail)));
    };
    const basic = basicCredentials(request);
    if (basic) {
      const ok =
        config.ADMIN_USERNAME !== undefined &&
        config.ADMIN_PASSWORD !== undefined &&
        sameSecret(basic[0], config.ADMIN_USERNAME) &&
        sameSecret(basic[1], config.ADMIN_PASSWORD);
      return ok ? next() : refuse(401, 'Wrong dashboard credentials.');
    }
    // passport types its middleware as `any`.
    const authenticate = passport.authenticate(
      'jwt',
      { session: false },
      (error: unknown, user: Actor | false) => {
        if (error || !user) return refuse(401, 'Admin credentials are required.');
        if (!user.roles.includes('admin')) return refuse(403, 'The queue dashboard is for admins.');
        next();
      },
    ) as RequestHandler;
    authenticate(request, response, next);
  };
}

/** Mounts the queue dashboard for every queue at /admin/queues. */
export function mountQueueDashboard(app: INestApplication, config: AppConfig): void {
  const adapter = new ExpressAdapter();
  adapter.setBasePath(DASHBOARD_PATH);
  createBullBoard({
    queues: app
      .get(JobQueues)
      .all()
      .map((queue) => new BullMQAdapter(queue, { readOnlyMode: false })),
    serverAdapter: adapter,
  });
  app.use(DASHBOARD_PATH, adminOnly(config), adapter.getRouter());
}
