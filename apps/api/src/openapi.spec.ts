import { EVENT_TYPES } from '@app/shared/events/events.schema';
import { SIGNATURE_HEADERS } from '@app/shared/events/webhook-signer';
import { producedEvents } from '@test/fakes/produced-events';
import { publishedBodySchemas, type PublishedWebhooks } from '@test/support/webhook-receiver';
import { apiDocument } from './openapi';

interface WebhookOperation {
  operationId: string;
  security: unknown[];
  parameters: { name: string; in: string; required: boolean }[];
  requestBody: { required: boolean; content: Record<string, { schema: { $ref: string } }> };
  responses: Record<string, unknown>;
}

const document = apiDocument() as unknown as PublishedWebhooks & {
  paths: Record<string, Record<string, { operationId: string }>>;
  webhooks: Record<string, { post: WebhookOperation }>;
};

describe('the OpenAPI webhooks (generated from the event schemas)', () => {
  it('lists exactly EVENT_TYPES, each a signed POST with a JSON body and the 2xx it expects', () => {
    expect(Object.keys(document.webhooks)).toEqual(EVENT_TYPES);
    for (const type of EVENT_TYPES) {
      const operation = document.webhooks[type]!.post;
      expect(operation.parameters).toEqual(
        Object.keys(SIGNATURE_HEADERS).map(
          (name) => expect.objectContaining({ name, in: 'header', required: true }) as unknown,
        ),
      );
      expect(operation.requestBody.required).toBe(true);
      expect(Object.keys(operation.requestBody.content)).toEqual(['application/json']);
      expect(Object.keys(operation.responses)).toContain('2XX');
      expect(operation.security).toEqual([]);
    }
  });

  it('names every operation once, webhooks and paths together', () => {
    const ids = [
      ...Object.values(document.paths).flatMap((methods) => Object.values(methods).map((o) => o.operationId)),
      ...Object.values(document.webhooks).map((webhook) => webhook.post.operationId),
    ];
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids) expect(id).toMatch(/^[a-z]+[A-Za-z]*$/);
  });

  it('publishes body schemas that accept what every producer records, and refuse a malformed body', async () => {
    // The JSON Schemas the document publishes for the webhooks' bodies, as validators a receiver could build.
    const published = publishedBodySchemas(document);
    expect([...published.keys()]).toEqual(EVENT_TYPES);
    const events = await producedEvents();
    for (const event of events) {
      const body: unknown = JSON.parse(event.body);
      expect([event.type, published.get(event.type)!.safeParse(body).error]).toEqual([event.type, undefined]);
      // Another event's body is not this one's.
      const other = EVENT_TYPES.find((type) => type !== event.type)!;
      expect(published.get(other)!.safeParse(body).success).toBe(false);
    }
    const purged = events.find((event) => event.type === 'video.purged');
    const body = JSON.parse(purged!.body) as { data: Record<string, unknown> };
    for (const data of [
      { ...body.data, objectsRemoved: -1 },
      { ...body.data, reason: 'deleted' },
      { ...body.data, purgedAt: 'yesterday' },
      { ...body.data, extra: true },
    ]) {
      expect(published.get('video.purged')!.safeParse({ ...body, data }).success).toBe(false);
    }
  });
});
