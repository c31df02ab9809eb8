import { type ExecutionContext, Injectable } from '@nestjs/common';
import { AuthGuard } from '@nestjs/passport';
import type { Request } from 'express';
import { ProblemException } from '@app/shared/http/problem';
import type { Actor as AuthenticatedUser } from '@app/shared/video/video-lifecycle';

/**
 * The one guard on `/api/**` (registered globally). Routes outside `/api` (health, metrics, docs)
 * are public. Authentication runs before validation, so a bad token always answers 401.
 */
@Injectable()
export class JwtAuthGuard extends AuthGuard('jwt') {
  override canActivate(context: ExecutionContext) {
    const request = context.switchToHttp().getRequest<Request>();
    if (!request.path.startsWith('/api/') && request.path !== '/api') return true;
    return super.canActivate(context);
  }

  override handleRequest<T = AuthenticatedUser>(
    error: unknown,
    user: T | false,
    _info: unknown,
    context: ExecutionContext,
  ): T {
    if (error || !user) {
      const request = context.switchToHttp().getRequest<Request>();
      const presented = /^\s*bearer\s+\S/i.test(request.headers.authorization ?? '');
      // RFC 6750 §3: no error code when no token was presented.
      throw new ProblemException(
        401,
        presented ? 'The bearer token is invalid or expired.' : 'A bearer token is required.',
        undefined,
        { 'WWW-Authenticate': presented ? 'Bearer error="invalid_token"' : 'Bearer' },
      );
    }
    return user;
  }
}
