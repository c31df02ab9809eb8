import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';

/** The id this request got (`requestId` in http-app.ts: its `X-Request-Id` or a new UUID); jobs carry it on. */
export const RequestId = createParamDecorator(
  (_data: unknown, context: ExecutionContext): string | undefined => {
    const id = context.switchToHttp().getRequest<FastifyRequest>().id;
    return id || undefined;
  },
);
