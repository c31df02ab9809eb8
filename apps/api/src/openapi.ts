import { describeEvent, EVENT_PAYLOADS, EVENT_TYPES, type EventType } from '@app/shared/events/events.schema';
import { SIGNATURE_HEADERS } from '@app/shared/events/webhook-signer';
import { HealthController } from '@app/shared/health/health.controller';
import { routesOf, type RouteDoc } from '@app/shared/http/route-doc';
import { buildOpenApiDocument, type WebhookDoc } from './common/openapi-builder';
import { QUEUE_DASHBOARD_ROUTE } from './admin/queue-dashboard.route';
import { API_DOCS_ROUTES } from './api-docs';
import { ErasureController } from './erasure/erasure.controller';
import { SearchController } from './search/http/search.controller';
import { SynonymsController } from './synonyms/synonyms.controller';
import { TrashOperationController } from './video/trash-operation.controller';
import { TrashController } from './video/trash.controller';
import { VideoController } from './video/video.controller';

/**
 * Every route of the API, in the document's order: each controller's, as its `@Route`s describe
 * them, then those mounted on Fastify. A test checks this list against the routes the application serves.
 */
export const API_ROUTES: RouteDoc[] = [
  ...routesOf([
    SearchController,
    SynonymsController,
    VideoController,
    TrashController,
    TrashOperationController,
    ErasureController,
    HealthController,
  ]),
  QUEUE_DASHBOARD_ROUTE,
  ...API_DOCS_ROUTES,
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
        { name: 'search', description: "The search's synonym set (bearer token, admins only)" },
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
