import { Reflector } from '@nestjs/core';

/**
 * What one request of a route costs against its caller's rate limit, read from its raw query
 * before validation (guards run first): 1 when a route does not say. A request the route will
 * refuse may be counted as anything; the route's own schema decides what it means.
 */
export const RequestCost = Reflector.createDecorator<(query: unknown) => number>();
