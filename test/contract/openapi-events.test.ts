/**
 * The events part of the v2 document: every event type under the OpenAPI
 * 3.1 `webhooks` map, with a schema and an example of the Event record the
 * service really sends, and the feed operations marked beta.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { OPENAPI_V2_FILE } from '../../scripts/contract-files.js';
import { EVENT_TYPES } from '../../src/events/event-types.js';
import { createTestApp } from '../support/app.js';
import { sqliteBackend } from '../support/storage.js';

type Json = Record<string, unknown>;
interface WebhookOperation {
  operationId: string;
  'x-stability': string;
  tags: string[];
  requestBody: { required: boolean; content: { 'application/json': { schema: { $ref: string }; examples: Record<string, { value: Json }> } } };
  responses: Record<string, unknown>;
}

const doc = JSON.parse(readFileSync(new URL(`../../${OPENAPI_V2_FILE}`, import.meta.url), 'utf8')) as {
  webhooks: Record<string, { post: WebhookOperation }>;
  paths: Record<string, Record<string, { 'x-stability': string }>>;
  components: { schemas: Record<string, Json> };
};

describe('the v2 document: events', () => {
  test('when read, then every event type is under webhooks, beta, with the Event record schema and an example of its own type', () => {
    // The feed's types, then the test event (POST /webhook-endpoints/{id}/test), which only a test sends.
    assert.deepEqual(Object.keys(doc.webhooks), [...EVENT_TYPES, 'webhook.test']);
    const test = doc.webhooks['webhook.test']?.post;
    assert.equal(test?.['x-stability'], 'beta');
    assert.deepEqual(test?.requestBody.content['application/json'].schema, { $ref: '#/components/schemas/WebhookTestEvent' });
    for (const type of EVENT_TYPES) {
      const operation = doc.webhooks[type]?.post;
      assert.ok(operation, type);
      assert.equal(operation['x-stability'], 'beta');
      assert.deepEqual(operation.tags, ['events']);
      const body = operation.requestBody.content['application/json'];
      const schema = type.startsWith('order.') ? 'OrderEvent' : 'MessageEvent';
      assert.deepEqual(body.schema, { $ref: `#/components/schemas/${schema}` });
      const examples = Object.values(body.examples).map((e) => e.value);
      assert.deepEqual(examples.map((e) => e.type), [type]);
      const enumOf = ((doc.components.schemas[schema]?.properties as Json).type as { enum: string[] }).enum;
      assert.ok(enumOf.includes(type), `${schema} lists ${type}`);
    }
    assert.equal(doc.paths['/events']?.get?.['x-stability'], 'beta');
    assert.equal(doc.paths['/events/{eventId}']?.get?.['x-stability'], 'beta');
  });

  test('when an order is cancelled, then the event the service stores has exactly the documented shape (keys of the example)', async (t) => {
    const { app, services, tenant } = await createTestApp(t, sqliteBackend);
    const { account, auth } = await tenant();
    await services.orderOperations.createOrder({ accountId: account.id, id: 1002n, petId: 7n, quantity: 1 });
    await services.orders.cancelOrder(account.id, 1002n);
    const feed = (await app.inject({ method: 'GET', url: '/v2/events?type=order.cancelled', headers: auth })).json<{ data: Json[] }>();
    const [sent] = feed.data;
    const documented = Object.values(doc.webhooks['order.cancelled']?.post.requestBody.content['application/json'].examples ?? {})[0]?.value;
    assert.ok(sent && documented);
    const shape = (value: unknown): unknown =>
      typeof value === 'object' && value !== null ? Object.fromEntries(Object.entries(value).map(([k, v]) => [k, shape(v)])) : typeof value;
    assert.deepEqual(shape(sent), shape(documented));
  });
});
