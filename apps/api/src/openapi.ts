import { z } from 'zod';
import { buildOpenApiDocument, type RouteDoc } from '@app/shared/http/openapi';
import { DASHBOARD_PATH } from './admin/dashboard-path';
import { searchPageSchema, searchQuerySchema } from './search/search-query.schema';
import {
  deleteQuerySchema,
  deleteResponseSchema,
  restoreResponseSchema,
  videoIdParamsSchema,
} from './video/video-params.schema';

const readiness = z.object({
  status: z.enum(['ok', 'error']),
  details: z.record(z.string(), z.object({ status: z.enum(['up', 'down']), message: z.string().optional() })),
});

const problem = (description: string) => ({ description, problem: true });
const unavailable = (what: string) => ({
  description: `${what} is unavailable`,
  problem: true,
  headers: { 'Retry-After': 'seconds to wait before trying again' },
});

/** Every route of the API. A test checks this list against the routes the application serves. */
export const API_ROUTES: RouteDoc[] = [
  {
    method: 'get',
    path: '/api/videos/search',
    tag: 'videos',
    summary: 'Full-text search over active videos (SPEC §7)',
    secured: true,
    query: searchQuerySchema,
    responses: {
      200: { description: 'a page of results', schema: searchPageSchema },
      400: problem('invalid parameters: each is named in `errors`'),
      503: unavailable('Search'),
    },
  },
  {
    method: 'delete',
    path: '/api/videos/:id',
    tag: 'videos',
    summary: 'Soft delete (retention) or permanent delete (SPEC §6)',
    secured: true,
    params: videoIdParamsSchema,
    query: deleteQuerySchema,
    responses: {
      200: { description: 'soft-deleted (with dates) or deleted', schema: deleteResponseSchema },
      400: problem('invalid id or retentionDays'),
      403: problem('not the author and not an admin'),
      404: problem('no such video, or it is deleted or being deleted'),
      503: unavailable('The database'),
    },
  },
  {
    method: 'post',
    path: '/api/videos/:id/restore',
    tag: 'videos',
    summary: 'Undo a soft delete (SPEC §8)',
    secured: true,
    params: videoIdParamsSchema,
    responses: {
      200: { description: 'the video is active', schema: restoreResponseSchema },
      400: problem('invalid id'),
      403: problem('not the author and not an admin'),
      404: problem('no such video, or it is deleted or being deleted'),
      503: unavailable('The database'),
    },
  },
  {
    method: 'get',
    path: '/health/live',
    tag: 'operations',
    summary: 'Liveness: the process runs',
    secured: false,
    responses: { 200: { description: 'alive', schema: z.object({ status: z.literal('ok') }) } },
  },
  {
    method: 'get',
    path: '/health/ready',
    tag: 'operations',
    summary: 'Readiness: MySQL, Redis, Elasticsearch and S3 answer',
    secured: false,
    responses: {
      200: { description: 'ready', schema: readiness },
      503: {
        description: 'a dependency is down (named in details)',
        schema: readiness,
        headers: { 'Retry-After': 'seconds' },
      },
    },
  },
  {
    method: 'get',
    path: '/metrics',
    tag: 'operations',
    summary: 'Prometheus metrics',
    secured: false,
    responses: { 200: { description: 'text exposition format' } },
  },
  {
    method: 'get',
    path: DASHBOARD_PATH,
    tag: 'operations',
    summary:
      'Queue dashboard (Bull Board): admin JWT (header or admin_token cookie) or dashboard credentials (Basic)',
    secured: false,
    responses: {
      200: { description: 'the dashboard (HTML)' },
      401: problem('no admin credentials'),
      403: problem('authenticated, but not an admin'),
    },
  },
];

export function apiDocument() {
  return buildOpenApiDocument(
    {
      title: 'Video deletion and search API',
      version: '1.0.0',
      description: 'Soft and permanent deletion with retention, restore, and full-text search over videos.',
    },
    API_ROUTES,
  );
}
