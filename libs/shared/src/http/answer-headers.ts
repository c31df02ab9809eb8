import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyInstance } from 'fastify';
import helmet from 'helmet';

/**
 * Helmet's defaults (OWASP's REST Security Cheat Sheet: `nosniff`, HSTS, `Referrer-Policy`, …),
 * with framing denied in both the old and the CSP way. JSON needs no CSP beyond `frame-ancestors`,
 * but the two HTML pages share the policy: Swagger UI (`/docs`) and Bull Board (`/admin/queues`)
 * load their own scripts, inline styles, `data:` images and, for Bull Board, Google Fonts, all of
 * which helmet's default allows. `upgrade-insecure-requests` goes: on a plain-HTTP deployment
 * (local, behind a TLS-terminating proxy reached by IP) it would make those pages fetch their
 * assets over HTTPS and fail.
 */
const SECURITY_HEADERS = {
  contentSecurityPolicy: {
    directives: { 'frame-ancestors': ["'none'"], 'upgrade-insecure-requests': null },
  },
  xFrameOptions: { action: 'deny' },
} as const;

/**
 * Helmet's headers for that configuration, asked of it once: they depend on nothing in the
 * request, and building its middleware for each request (as its Fastify plugin does) would parse
 * the policy again on every answer, early refusals included.
 */
function securityHeaders(): Record<string, string> {
  const headers: Record<string, string> = {};
  const response = {
    setHeader: (name: string, value: string) => (headers[name] = value),
    removeHeader: () => undefined,
  };
  // Helmet throws a bad configuration itself; its callback stays for compatibility only.
  helmet(SECURITY_HEADERS)({} as IncomingMessage, response as unknown as ServerResponse, () => undefined);
  return headers;
}

/**
 * The headers every answer carries, whoever sends it: routes, problem documents, the draining 503,
 * Swagger UI, Bull Board. Set as the request arrives, so an error, an early refusal or a plugin's
 * answer cannot miss them; a route may still replace them (a static file's own `Cache-Control`).
 * - `X-Request-Id`: the id of the request's log line and of the jobs it queues, so a caller's
 *   report can be found in the logs.
 * - `Cache-Control: no-store`: every `/api` answer is for one caller; no shared cache may keep it.
 *   Health, metrics and errors are not worth caching either, so there is no list of exceptions.
 */
export function useAnswerHeaders(fastify: FastifyInstance): void {
  const security = securityHeaders();
  fastify.addHook('onRequest', (request, reply, done) => {
    void reply.headers(security).header('X-Request-Id', request.id).header('Cache-Control', 'no-store');
    done();
  });
}
