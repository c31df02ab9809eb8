import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import type { Actor as AuthenticatedUser } from '@app/shared/video/video-lifecycle';

export const CurrentUser = createParamDecorator(
  (_data: unknown, context: ExecutionContext): AuthenticatedUser =>
    context.switchToHttp().getRequest<{ user: AuthenticatedUser }>().user,
);
