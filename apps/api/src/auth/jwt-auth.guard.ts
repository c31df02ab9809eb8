import { type ExecutionContext, Injectable } from '@nestjs/common';
import { AuthGuard } from '@nestjs/passport';
import type { FastifyRequest } from 'fastify';
import { ProblemException } from '@app/shared/http/problem';
import type { AuthenticatedUser } from './jwt.strategy';
import { VerifiedTokens } from './verified-tokens';

function bearerToken(request: FastifyRequest): string | undefined {
  const match = /^\s*bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? '');
  return match?.[1];
}

/**
 * The one guard on `/api/**` (registered globally). Routes outside `/api` (health, metrics, docs)
 * are public. Authentication runs before validation, so a bad token always answers 401. A token
 * verified once is known until it expires (`VerifiedTokens`); only valid tokens are remembered.
 */
@Injectable()
export class JwtAuthGuard extends AuthGuard('jwt') {
  private readonly verified = new VerifiedTokens<AuthenticatedUser>();

  override canActivate(context: ExecutionContext) {
    const request = context.switchToHttp().getRequest<FastifyRequest & { user?: AuthenticatedUser }>();
    const { url } = request;
    if (!url.startsWith('/api/') && url !== '/api' && !url.startsWith('/api?')) return true;
    const token = bearerToken(request);
    const known = token === undefined ? undefined : this.verified.get(token);
    if (known) {
      request.user = known;
      return true;
    }
    return super.canActivate(context);
  }

  override handleRequest<T = AuthenticatedUser>(
    error: unknown,
    user: T | false,
    _info: unknown,
    context: ExecutionContext,
  ): T {
    const request = context.switchToHttp().getRequest<FastifyRequest>();
    if (error || !user) {
      const presented = /^\s*bearer\s+\S/i.test(request.headers.authorization ?? '');
      // RFC 6750 §3: no error code when no token was presented.
      throw new ProblemException(
        401,
        presented ? 'The bearer token is invalid or expired.' : 'A bearer token is required.',
        undefined,
        { 'WWW-Authenticate': presented ? 'Bearer error="invalid_token"' : 'Bearer' },
      );
    }
    const token = bearerToken(request);
    const caller = user as unknown as AuthenticatedUser;
    if (token !== undefined) this.verified.set(token, caller, caller.tokenExpiresAt);
    return user;
  }
}
