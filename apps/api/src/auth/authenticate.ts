import type { IncomingHttpHeaders } from 'node:http';
import type { FastifyReply, FastifyRequest } from 'fastify';
import passport from 'passport';
import { ProblemException } from '@app/shared/http/problem';
import type { Actor } from '@app/shared/video/video-lifecycle';

/**
 * The token of an `Authorization: Bearer <token>` header (the scheme in any letter case), or null.
 * The header must hold exactly the scheme and one token: anything more is malformed (RFC 6750 §2.1).
 */
export function bearerToken(request: { headers: IncomingHttpHeaders }): string | null {
  const match = /^\s*bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? '');
  return match?.[1] ?? null;
}

/** docs/contract.md §3's 401: a problem document with a Bearer challenge (RFC 6750 §3). */
export function unauthorized(request: { headers: IncomingHttpHeaders }): ProblemException {
  const presented = /^\s*bearer\s+\S/i.test(request.headers.authorization ?? '');
  // RFC 6750 §3: no error code when no token was presented.
  return new ProblemException(
    401,
    presented ? 'The bearer token is invalid or expired.' : 'A bearer token is required.',
    undefined,
    { 'WWW-Authenticate': presented ? 'Bearer error="invalid_token"' : 'Bearer' },
  );
}

/**
 * The JWT strategy's verdict on a request outside Nest's guards (the queue dashboard, a path the
 * router cannot read), in passport's callback form: nothing is written to the reply.
 */
export function verifiedCaller(request: FastifyRequest, reply: FastifyReply): Promise<Actor | false> {
  return new Promise((done) => {
    // passport types its middleware as `any`.
    const authenticate = passport.authenticate(
      'jwt',
      { session: false },
      (error: unknown, user: Actor | false) => done(error ? false : user),
    ) as (request: FastifyRequest, response: unknown, next: () => void) => void;
    authenticate(request, reply.raw, () => done(false));
  });
}

/**
 * For a request that reaches no route (its path cannot be read): the 401 a caller without a valid
 * token gets before anything else is said about the request (docs/contract.md §3), or nothing.
 */
export async function refuseUnauthenticated(
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<ProblemException | undefined> {
  return (await verifiedCaller(request, reply)) ? undefined : unauthorized(request);
}
