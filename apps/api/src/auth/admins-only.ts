import { type CanActivate, type ExecutionContext, Injectable } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ProblemException } from '@app/shared/http/problem';
import { isAdmin, type Actor } from '@app/shared/video/video-lifecycle';
import { unauthorized, verifiedCaller } from './authenticate';

export const ADMINS_ONLY = 'Only an admin may do this.';

/** A route for admins only: anyone else is answered 403 (docs/contract.md §3). */
export function requireAdmin(caller: Actor): void {
  if (!isAdmin(caller)) throw new ProblemException(403, ADMINS_ONLY);
}

/**
 * Who may send a body to an admins' route (`BodyConfig.admitBody`, http-app.ts), asked before a
 * byte of it is read: a caller without a valid token is answered 401 and anyone but an admin 403,
 * as the route itself would answer them, so neither can make a process hold what it sends.
 */
export async function admitAdminBody(
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<ProblemException | undefined> {
  const caller = await verifiedCaller(request, reply);
  if (!caller) return unauthorized(request);
  return isAdmin(caller) ? undefined : new ProblemException(403, ADMINS_ONLY);
}

/**
 * The guard of an admins' controller (`@UseGuards(AdminsOnly)`): after authentication and the rate
 * limit, before its input is read, so anyone but an admin learns nothing about the route's input.
 */
@Injectable()
export class AdminsOnly implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    const request = context.switchToHttp().getRequest<FastifyRequest & { user?: Actor }>();
    if (!request.user) throw unauthorized(request);
    requireAdmin(request.user);
    return true;
  }
}
