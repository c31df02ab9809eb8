import fastifyHelmet from '@fastify/helmet';
import type { FastifyInstance } from 'fastify';

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
 * The headers every answer carries, whoever sends it: routes, problem documents, the draining 503,
 * Swagger UI, Bull Board. Set as the request arrives, so an error, an early refusal or a plugin's
 * answer cannot miss them; a route may still replace them (a static file's own `Cache-Control`).
 * - `X-Request-Id`: the id of the request's log line and of the jobs it queues, so a caller's
 *   report can be found in the logs.
 * - `Cache-Control: no-store`: every `/api` answer is for one caller; no shared cache may keep it.
 *   Health, metrics and errors are not worth caching either, so there is no list of exceptions.
 */
export async function useAnswerHeaders(fastify: FastifyInstance): Promise<void> {
  fastify.addHook('onRequest', (request, reply, done) => {
    void reply.header('X-Request-Id', request.id).header('Cache-Control', 'no-store');
    done();
  });
  await fastify.register(fastifyHelmet, SECURITY_HEADERS);
}
