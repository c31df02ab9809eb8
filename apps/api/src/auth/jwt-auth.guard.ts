import { type ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { AuthGuard } from '@nestjs/passport';
import type { FastifyRequest } from 'fastify';
import { PUBLIC_ROUTE } from '@app/shared/http/public-route';
import { bearerToken, unauthorized } from './authenticate';
import type { AuthenticatedUser } from './jwt.strategy';
import { VerifiedTokens } from './verified-tokens';

/**
 * The API's one authentication guard, registered globally: every route needs a valid bearer token
 * unless its controller is marked `@PublicRoute()` (health). Which route it is comes from
 * the router's match, so a percent-encoded path cannot slip past. Authentication runs before
 * validation, so a bad token always answers 401. A token verified once is known until it expires
 * (`VerifiedTokens`); only valid tokens are remembered.
 */
@Injectable()
export class JwtAuthGuard extends AuthGuard('jwt') {
  private readonly verified = new VerifiedTokens<AuthenticatedUser>();

  constructor(private readonly reflector: Reflector) {
    super();
  }

  override canActivate(context: ExecutionContext) {
    const isPublic = this.reflector.getAllAndOverride<boolean | undefined>(PUBLIC_ROUTE, [
      context.getHandler(),
      context.getClass(),
    ]);
    if (isPublic) return true;
    const request = context.switchToHttp().getRequest<FastifyRequest & { user?: AuthenticatedUser }>();
    const token = bearerToken(request);
    const known = token === null ? undefined : this.verified.get(token);
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
    if (error || !user) throw unauthorized(request);
    const token = bearerToken(request);
    const caller = user as unknown as AuthenticatedUser;
    if (token !== null) this.verified.set(token, caller, caller.tokenExpiresAt);
    return user;
  }
}
