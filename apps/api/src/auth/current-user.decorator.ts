import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import type { Actor as AuthenticatedUser } from '@app/shared/video/video-lifecycle';
import { unauthorized } from './authenticate';

/**
 * The authenticated caller. Fails closed: a handler that reads the caller on a route the guard let
 * through without one (a `@PublicRoute()` by mistake) answers 401, never acts as nobody in particular.
 */
export const CurrentUser = createParamDecorator(
  (_data: unknown, context: ExecutionContext): AuthenticatedUser => {
    const request = context.switchToHttp().getRequest<FastifyRequest & { user?: AuthenticatedUser }>();
    if (!request.user) throw unauthorized(request);
    return request.user;
  },
);
