import { applyDecorators, Delete, Get, Post, Put, SetMetadata, type Type } from '@nestjs/common';
import { PATH_METADATA } from '@nestjs/common/constants';
import type { z } from 'zod';

/** A JSON body, listed once under `components.schemas` by this name, so clients get a named type. */
export interface NamedSchema {
  name: string;
  schema: z.ZodType;
}

export interface RouteResponse {
  description: string;
  /** An `application/json` body. */
  json?: NamedSchema;
  /** An `application/problem+json` body (next to `json` when the status can carry either). */
  problem?: boolean;
  /** A text body of this media type (metrics, HTML). */
  text?: string;
  headers?: Record<string, string>;
}

/** How a route is authorized: the API's bearer token, nothing, or its own alternatives. */
export type RouteSecurity = 'bearer' | 'public' | Record<string, string[]>[];

/** One route as OpenAPI describes it, built from the same zod schemas that validate its input. */
export interface RouteDoc {
  method: 'get' | 'post' | 'put' | 'delete';
  /** Express-style path: `/api/videos/:id`; given to `Route`, the handler's own under its controller's (`:id`). */
  path: string;
  operationId: string;
  summary: string;
  description: string;
  tag: string;
  security: RouteSecurity;
  params?: z.ZodObject;
  query?: z.ZodObject;
  /** Request headers the route reads, by name: what each does. */
  headers?: Record<string, string>;
  /** The `application/json` body the route takes, from the schema that validates it. */
  body?: NamedSchema;
  responses: Record<number, RouteResponse>;
}

export const problem = (description: string): RouteResponse => ({ description, problem: true });
/** A 503 of the route's own; the document adds `Retry-After` to every 503 (openapi-builder.ts). */
export const unavailable = (what: string): RouteResponse => problem(`${what} is unavailable`);
export const json = (name: string, schema: z.ZodType): NamedSchema => ({ name, schema });

/** Metadata key of `Route`: the handler's `RouteDoc`, its path relative to the controller's. */
const ROUTE_DOC = 'routeDoc';

const MAPPINGS = { get: Get, post: Post, put: Put, delete: Delete } satisfies Record<
  RouteDoc['method'],
  unknown
>;

/**
 * Declares a handler's route once: Nest's mapping for `method` and `path` (as `@Get` takes it) and
 * what the OpenAPI document says of it, which `routesOf` reads back with the whole path.
 */
export const Route = (doc: RouteDoc): MethodDecorator =>
  applyDecorators(MAPPINGS[doc.method](doc.path), SetMetadata(ROUTE_DOC, doc));

const joined = (...parts: string[]) =>
  `/${parts
    .flatMap((part) => part.split('/'))
    .filter(Boolean)
    .join('/')}`;

/**
 * The routes of `controllers`, in their order and each one's handlers in declaration order, with
 * whole paths. A handler Nest routes without `@Route` throws: the document would miss it.
 */
export function routesOf(controllers: Type[]): RouteDoc[] {
  return controllers.flatMap((controller) => {
    const prefix = (Reflect.getMetadata(PATH_METADATA, controller) as string | undefined) ?? '';
    const prototype = controller.prototype as object;
    return Object.getOwnPropertyNames(prototype).flatMap((name) => {
      const handler: unknown = Object.getOwnPropertyDescriptor(prototype, name)?.value;
      if (name === 'constructor' || typeof handler !== 'function') return [];
      const doc = Reflect.getMetadata(ROUTE_DOC, handler) as RouteDoc | undefined;
      if (doc) return [{ ...doc, path: joined(prefix, doc.path) }];
      if (Reflect.hasMetadata(PATH_METADATA, handler))
        throw new Error(
          `${controller.name}.${name} is routed without @Route: the API document would miss it`,
        );
      return [];
    });
  });
}
