import { problem, type RouteDoc } from '@app/shared/http/route-doc';
import { DASHBOARD_LOGIN_FAILURES, DASHBOARD_LOGIN_WINDOW_SECONDS } from './dashboard-login-limit';
import { DASHBOARD_PATH } from './dashboard-path';

/**
 * What the API document says of the queue dashboard, which `mountQueueDashboard` mounts on Fastify
 * rather than a controller (kept apart from it so the document needs no Bull Board code).
 */
export const QUEUE_DASHBOARD_ROUTE: RouteDoc = {
  method: 'get',
  path: DASHBOARD_PATH,
  operationId: 'getQueueDashboard',
  tag: 'operations',
  summary: 'Queue dashboard',
  description:
    'Bull Board over the job queues, for admins: an admin JWT (Authorization header or `admin_token` ' +
    'cookie) or the dashboard credentials (HTTP Basic).',
  security: [{ bearerAuth: [] }, { adminCookie: [] }, { dashboardBasic: [] }],
  responses: {
    200: { description: 'the dashboard', text: 'text/html' },
    401: {
      description: 'no admin credentials, or wrong ones',
      problem: true,
      headers: { 'WWW-Authenticate': 'Basic realm="queues", and Bearer' },
    },
    403: problem('authenticated, but not an admin'),
    429: {
      description:
        `${DASHBOARD_LOGIN_FAILURES} wrong dashboard passwords from this address within ` +
        `${DASHBOARD_LOGIN_WINDOW_SECONDS / 60} minutes: every password is refused until then`,
      problem: true,
      headers: { 'Retry-After': 'seconds to wait before trying again' },
    },
  },
};
