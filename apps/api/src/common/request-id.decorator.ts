import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import type { Request } from 'express';

/** The request id pino-http gave this request (from `X-Request-Id` or a new UUID); jobs carry it on. */
export const RequestId = createParamDecorator(
  (_data: unknown, context: ExecutionContext): string | undefined => {
    const id = context.switchToHttp().getRequest<Request>().id;
    return typeof id === 'string' ? id : undefined;
  },
);
