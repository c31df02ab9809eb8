import { z } from 'zod';
import { describeEvent, EVENT_PAYLOADS, EVENT_TYPES, type EventType } from '@app/shared/events/events.schema';
import { SIGNATURE_HEADERS } from '@app/shared/events/webhook-signer';
import {
  buildOpenApiDocument,
  type RouteDoc,
  type RouteResponse,
  type WebhookDoc,
} from './common/openapi-builder';
import { DASHBOARD_LOGIN_FAILURES, DASHBOARD_LOGIN_WINDOW_SECONDS } from './admin/dashboard-login-limit';
import { DASHBOARD_PATH } from './admin/dashboard-path';
import { erasureCountSchema } from './erasure/erasure-count.schema';
import {
  authorParamsSchema,
  erasureAcceptedSchema,
  erasureIdParamsSchema,
  erasureSchema,
  eraseQuerySchema,
} from './erasure/erasure.schema';
import {
  searchPageSchema,
  searchQuerySchema,
  suggestionsSchema,
  suggestQuerySchema,
} from './search/http/search-query.schema';
import {
  trashOperationAcceptedSchema,
  trashOperationIdParamsSchema,
  trashOperationSchema,
  trashOwnerQuerySchema,
  trashPageSchema,
  trashQuerySchema,
} from './video/trash.schema';
import {
  deleteQuerySchema,
  deleteResponseSchema,
  deletionReceiptSchema,
  restoreResponseSchema,
  videoIdParamsSchema,
} from './video/video-params.schema';

const liveness = z.object({ status: z.literal('ok') });

/** Each dependency's status only: the route is public (health.controller.ts). */
const dependencies = z.record(z.string(), z.object({ status: z.enum(['up', 'down']) }));
const readiness = z.object({
  status: z.enum(['ok', 'error']),
  info: dependencies.optional().meta({ description: 'the dependencies that answer' }),
  error: dependencies.optional().meta({ description: 'the dependencies that do not' }),
  details: dependencies.meta({ description: 'every dependency: mysql, redis, elasticsearch, s3' }),
});

const problem = (description: string): RouteResponse => ({ description, problem: true });
/** A 503 of this route's own; the document adds `Retry-After` to every 503 (common/openapi-builder.ts). */
const unavailable = (what: string): RouteResponse => problem(`${what} is unavailable`);
const json = (name: string, schema: z.ZodType) => ({ name, schema });

/** Every route of the API. A test checks this list against the routes the application serves. */
export const API_ROUTES: RouteDoc[] = [
  {
    method: 'get',
    path: '/api/videos/search',
    operationId: 'listVideoSearch',
    tag: 'videos',
    summary: 'Search active videos',
    description:
      'Full-text search over the titles, descriptions, tags, speakers and events of active videos, in any ' +
      'inflection, with or without accents, the last word also as the start of a title word; ranked by ' +
      'relevance or date, filtered by author and publication date, one page at a time or by cursor, with ' +
      'highlights and facets on request (docs/contract.md §7, §7.1).',
    security: 'bearer',
    query: searchQuerySchema,
    responses: {
      200: { description: 'a page of results', json: json('VideoSearchPage', searchPageSchema) },
      400: problem('invalid parameters: each is named in `errors`'),
      429: {
        description:
          'a `cursor` page that would open a point in time past a ceiling: this caller holds ' +
          '`SEARCH_PIT_MAX_PER_CALLER` cursor walks, or all callers together `SEARCH_PIT_MAX_OPEN` ' +
          '(docs/contract.md §7); a search by page number is never refused so',
        problem: true,
        headers: { 'Retry-After': 'seconds until a held walk lapses at the latest' },
      },
      503: unavailable('Search'),
    },
  },
  {
    method: 'get',
    path: '/api/videos/suggest',
    operationId: 'listVideoSuggestions',
    tag: 'videos',
    summary: 'Complete a title as it is typed',
    description:
      'Titles of active videos that hold every word of `q`, the last one as the start of a word, best ' +
      'first: for a search box (docs/contract.md §7.2).',
    security: 'bearer',
    query: suggestQuerySchema,
    responses: {
      200: { description: 'the suggestions', json: json('VideoSuggestions', suggestionsSchema) },
      400: problem('invalid parameters: each is named in `errors`'),
      503: unavailable('Search'),
    },
  },
  {
    method: 'delete',
    path: '/api/videos/:id',
    operationId: 'deleteVideo',
    tag: 'videos',
    summary: 'Delete a video',
    description:
      'Soft delete: the video leaves search at once and is purged after `retentionDays` (30 by default) ' +
      'unless restored; `permanent=true` purges it now. Only its author or an admin may (docs/contract.md §6).',
    security: 'bearer',
    params: videoIdParamsSchema,
    query: deleteQuerySchema,
    responses: {
      200: {
        description: 'soft-deleted (with dates) or deleted',
        json: json('VideoDeletion', deleteResponseSchema),
      },
      400: problem('invalid id or retentionDays'),
      403: problem('not the author and not an admin'),
      404: problem('no such video, or it is deleted or being deleted'),
      503: unavailable('The database'),
    },
  },
  {
    method: 'post',
    path: '/api/videos/:id/restore',
    operationId: 'restoreVideo',
    tag: 'videos',
    summary: 'Restore a soft-deleted video',
    description:
      'Undoes a soft delete before its purge: the video is active and searchable again. ' +
      'Only its author or an admin may (docs/contract.md §8).',
    security: 'bearer',
    params: videoIdParamsSchema,
    responses: {
      200: { description: 'the video is active', json: json('VideoRestoration', restoreResponseSchema) },
      400: problem('invalid id'),
      403: problem('not the author and not an admin'),
      404: problem('no such video, or it is deleted or being deleted'),
      503: unavailable('The database'),
    },
  },
  {
    method: 'get',
    path: '/api/videos/trash',
    operationId: 'listTrash',
    tag: 'trash',
    summary: "List the caller's trash",
    description:
      "The caller's soft-deleted videos, most recently deleted first, with when each was deleted and when " +
      "it will be purged; admins may name another author's trash (docs/contract.md §10.1).",
    security: 'bearer',
    query: trashQuerySchema,
    responses: {
      200: { description: 'a page of the trash', json: json('TrashPage', trashPageSchema) },
      400: problem('invalid parameters: each is named in `errors`'),
      403: problem("another author's trash, and not an admin"),
      503: unavailable('The database'),
    },
  },
  {
    method: 'post',
    path: '/api/videos/trash/restore',
    operationId: 'restoreTrash',
    tag: 'trash',
    summary: 'Restore every video in the trash',
    description:
      'Every video in the trash when asked becomes active and searchable again, its purge cancelled. Answers ' +
      '202 at once; the worker moves the videos in batches, through restarts and Redis loss. While a trash ' +
      'operation of the same trash runs (a restore or an empty), asking again answers that one ' +
      '(docs/contract.md §10.1).',
    security: 'bearer',
    query: trashOwnerQuerySchema,
    responses: {
      202: {
        description: 'the operation, new or already running; follow it with getTrashOperation',
        json: json('TrashOperationAccepted', trashOperationAcceptedSchema),
      },
      400: problem('invalid authorId'),
      403: problem("another author's trash, and not an admin"),
      503: unavailable('The database'),
    },
  },
  {
    method: 'delete',
    path: '/api/videos/trash',
    operationId: 'emptyTrash',
    tag: 'trash',
    summary: 'Empty the trash',
    description:
      'Permanently deletes every video in the trash when asked, as `DELETE /api/videos/{id}?permanent=true` ' +
      'would: the worker starts each deletion in batches (each video hidden, then its media, index document ' +
      'and row removed by its deletion job). Answers 202 at once; survives restarts and Redis loss. While a ' +
      'trash operation of the same trash runs (a restore or an empty), asking again answers that one ' +
      '(docs/contract.md §10.1).',
    security: 'bearer',
    query: trashOwnerQuerySchema,
    responses: {
      202: {
        description: 'the operation, new or already running; follow it with getTrashOperation',
        json: json('TrashOperationAccepted', trashOperationAcceptedSchema),
      },
      400: problem('invalid authorId'),
      403: problem("another author's trash, and not an admin"),
      503: unavailable('The database'),
    },
  },
  {
    method: 'get',
    path: '/api/trash-operations/:operationId',
    operationId: 'getTrashOperation',
    tag: 'trash',
    summary: 'Follow a trash operation',
    description:
      'Its kind, progress (`done` of `total`, exact: committed with each batch), state and completion time. ' +
      'The trash owner or an admin only; kept `TRASH_OPERATION_RETENTION_DAYS` after its completion ' +
      '(docs/contract.md §10.1).',
    security: 'bearer',
    params: trashOperationIdParamsSchema,
    responses: {
      200: { description: 'the operation', json: json('TrashOperation', trashOperationSchema) },
      400: problem('invalid operationId'),
      403: problem('not the trash owner and not an admin'),
      404: problem('no such trash operation (or past its retention)'),
      503: unavailable('The database'),
    },
  },
  {
    method: 'get',
    path: '/api/videos/:id/deletion',
    operationId: 'getVideoDeletion',
    tag: 'videos',
    summary: "A video's deletion receipt",
    description:
      'Where the deletion of a video stands: soft-deleted, being deleted, or deleted, with who asked, why, ' +
      'when it finished and how many media objects were removed. Keeps answering after the video is gone, ' +
      'from its audit record. Only its author or an admin may (docs/contract.md §10.3).',
    security: 'bearer',
    params: videoIdParamsSchema,
    responses: {
      200: { description: 'the receipt', json: json('DeletionReceipt', deletionReceiptSchema) },
      400: problem('invalid id'),
      403: problem('not the author and not an admin'),
      404: problem('no such video, or it is active (nothing to show)'),
      503: unavailable('The database'),
    },
  },
  {
    method: 'delete',
    path: '/api/authors/:authorId/videos',
    operationId: 'eraseAuthorVideos',
    tag: 'erasure',
    summary: "Erase an author's videos",
    description:
      'Every video of the author (right to erasure): soft-deleted with `retentionDays` (the default retention if ' +
      'absent), or with `permanent=true` deleted at once. Answers 202 at once; the worker moves the videos in ' +
      'batches, through restarts and Redis loss. While one erasure of the author is unfinished, asking again ' +
      'answers that one. `dryRun=true` answers 200 with the count and changes nothing; so does an author with no ' +
      'video to erase and no erasure under way (`{ "videos": 0 }`). The author themself or an admin only ' +
      '(docs/contract.md §10.2).',
    security: 'bearer',
    params: authorParamsSchema,
    query: eraseQuerySchema,
    responses: {
      200: {
        description:
          'nothing changed: a dry run, with how many videos it would act on (`dryRun: true`); or no video ' +
          'to erase (`videos: 0`, no `dryRun`), nothing written',
        json: json('ErasureCount', erasureCountSchema),
      },
      202: {
        description: 'the erasure, new or already under way; follow it with getErasure',
        json: json('ErasureAccepted', erasureAcceptedSchema),
      },
      400: problem('invalid authorId or retentionDays'),
      403: problem('not the author and not an admin'),
      503: unavailable('The database'),
    },
  },
  {
    method: 'get',
    path: '/api/erasures/:erasureId',
    operationId: 'getErasure',
    tag: 'erasure',
    summary: 'Follow an erasure',
    description:
      'Its mode, progress (`done` of `total`, exact: committed with each batch), state and completion time. ' +
      'The author or an admin only (docs/contract.md §10.2).',
    security: 'bearer',
    params: erasureIdParamsSchema,
    responses: {
      200: { description: 'the erasure', json: json('Erasure', erasureSchema) },
      400: problem('invalid erasureId'),
      403: problem('not the author and not an admin'),
      404: problem('no such erasure'),
      503: unavailable('The database'),
    },
  },
  {
    method: 'get',
    path: '/health/live',
    operationId: 'getLiveness',
    tag: 'operations',
    summary: 'Liveness',
    description: 'The process runs; no dependency is checked.',
    security: 'public',
    responses: { 200: { description: 'alive', json: json('Liveness', liveness) } },
  },
  {
    method: 'get',
    path: '/health/ready',
    operationId: 'getReadiness',
    tag: 'operations',
    summary: 'Readiness',
    description: 'MySQL, Redis, Elasticsearch and S3 all answer; a 503 names each as up or down.',
    security: 'public',
    responses: {
      200: { description: 'ready', json: json('Readiness', readiness) },
      503: {
        description: 'a dependency is down (named in details)',
        json: json('Readiness', readiness),
        headers: { 'Retry-After': 'seconds' },
      },
    },
  },
  {
    method: 'get',
    path: DASHBOARD_PATH,
    operationId: 'getQueueDashboard',
    tag: 'operations',
    summary: 'Queue dashboard',
    description:
      'Bull Board over the job queues, for admins: an admin JWT (Authorization header or `admin_token` ' +
      'cookie) or the dashboard credentials (HTTP Basic).',
    security: [{ bearerAuth: [] }, { adminCookie: [] }, { dashboardBasic: [] }],
    responses: {
      200: { description: 'the dashboard', text: 'text/html' },
      401: {
        description: 'no admin credentials, or wrong ones',
        problem: true,
        headers: { 'WWW-Authenticate': 'Basic realm="queues", and Bearer' },
      },
      403: problem('authenticated, but not an admin'),
      429: {
        description:
          `${DASHBOARD_LOGIN_FAILURES} wrong dashboard passwords from this address within ` +
          `${DASHBOARD_LOGIN_WINDOW_SECONDS / 60} minutes: every password is refused until then`,
        problem: true,
        headers: { 'Retry-After': 'seconds to wait before trying again' },
      },
    },
  },
  {
    method: 'get',
    path: '/docs-json',
    operationId: 'getOpenApiDocument',
    tag: 'operations',
    summary: 'This OpenAPI document',
    description: 'The OpenAPI 3.1 document of the API, built from the zod schemas that validate its input.',
    security: 'public',
    responses: {
      200: { description: 'the document', json: json('OpenApiDocument', z.record(z.string(), z.unknown())) },
    },
  },
  {
    method: 'get',
    path: '/docs',
    operationId: 'getApiDocsPage',
    tag: 'operations',
    summary: 'Swagger UI',
    description: 'Swagger UI over this document.',
    security: 'public',
    responses: { 200: { description: 'the page', text: 'text/html' } },
  },
];

/** `video.soft_deleted` → `VideoSoftDeleted`. */
const pascalCase = (type: EventType) =>
  type
    .split(/[._]/)
    .map((word) => word.charAt(0).toUpperCase() + word.slice(1))
    .join('');

const DELIVERY =
  'POSTed by the worker to each URL of `WEBHOOK_URLS` (`user:password@` in a URL is sent as Basic authorization), ' +
  'signed as the Standard Webhooks specification says. Delivered at least once, in order per video (an erasure ' +
  'is its own subject) and per receiver, retried with backoff for at least 72 hours: a receiver drops repeats by ' +
  '`webhook-id` (docs/contract.md §10.4).';

/** Every event the service sends, one webhook each, generated from the schemas the outbox checks events with. */
export const API_WEBHOOKS: WebhookDoc[] = EVENT_TYPES.map((type) => {
  const { summary, description } = describeEvent(type);
  return {
    name: type,
    operationId: `on${pascalCase(type)}`,
    tag: 'webhooks',
    summary,
    description: `${description}\n\n${DELIVERY}`,
    headers: SIGNATURE_HEADERS,
    body: { name: `${pascalCase(type)}Event`, schema: EVENT_PAYLOADS[type] },
    responses: {
      '2XX': { description: 'the delivery is recorded; the answer is not read beyond 1 KiB' },
      default: {
        description:
          'any other answer (a redirect too: none is followed), or none within `WEBHOOK_TIMEOUT_MS`, is a failed ' +
          'attempt, retried with backoff; a receiver should answer so to a request whose signature does not verify',
      },
    },
  };
});

export function apiDocument() {
  return buildOpenApiDocument(
    {
      title: 'Video deletion and search API',
      version: '1.0.0',
      description: 'Soft and permanent deletion with retention, restore, and full-text search over videos.',
      // package.json's: the code is not licensed for use outside the platform.
      license: { name: 'UNLICENSED' },
      tags: [
        { name: 'videos', description: 'Search, delete and restore videos (bearer token)' },
        {
          name: 'trash',
          description: "The caller's soft-deleted videos: list, restore all, empty (bearer token)",
        },
        { name: 'operations', description: 'Probes, metrics, the queue dashboard and these docs' },
        {
          name: 'webhooks',
          description:
            'Events the service POSTs to the receivers of `WEBHOOK_URLS`, signed (Standard Webhooks)',
        },
      ],
      securitySchemes: {
        adminCookie: { type: 'apiKey', in: 'cookie', name: 'admin_token' },
        dashboardBasic: { type: 'http', scheme: 'basic' },
      },
    },
    API_ROUTES,
    API_WEBHOOKS,
  );
}
