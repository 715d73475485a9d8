import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import {
  CLIENT_V2_TYPES_FILE,
  generateClientTypes,
  generateOpenApiV2Json,
  OPENAPI_FILE,
  OPENAPI_V2_FILE,
  PUBLISHED_SERVERS,
} from '../../scripts/contract-files.js';
import { testConfig } from '../support/container.js';
import { ERROR_CODES } from '../../src/errors/errors.js';
import { STABILITY_LEVELS } from '../../src/openapi/openapi-document.js';
import { createTestApp } from '../support/app.js';
import { sqliteBackend } from '../support/storage.js';

/** The servers the committed documents publish, configured. */
const PUBLISHED_CONFIG = testConfig(PUBLISHED_SERVERS);

const committed = (file: string) => readFileSync(new URL(`../../${file}`, import.meta.url), 'utf8');

type Json = Record<string, unknown>;
interface Document {
  openapi: string;
  info: { title: string; version: string; description: string };
  externalDocs: { description: string; url: string };
  servers: { url: string; description: string }[];
  tags: { name: string }[];
  security: Json[];
  paths: Record<string, Record<string, Json & { responses: Record<string, Json & { headers?: Record<string, Json> }> }>>;
  components: { schemas: Record<string, Json & { properties: Record<string, Json>; required?: string[] }>; securitySchemes: Json };
}
const doc = JSON.parse(committed(OPENAPI_V2_FILE)) as Document;
const v1 = JSON.parse(committed(OPENAPI_FILE)) as Document;
const operationsOf = (document: Document) =>
  Object.entries(document.paths).flatMap(([path, item]) => Object.entries(item).map(([method, op]) => ({ path, method, op })));
const operations = operationsOf(doc);
const operation = (id: string, document = doc) => {
  const found = operationsOf(document).find((o) => o.op.operationId === id);
  if (found === undefined) throw new Error(`no operation ${id}`);
  return found;
};
const media = (response: Json | undefined) => (response?.content as Record<string, Json> | undefined)?.['application/json'];

describe('the committed OpenAPI document of v2 (beta)', () => {
  test('when the code generates the v2 document, then it equals openapi/openapi-v2.json (run `npm run openapi` after changing a route)', async () => {
    assert.equal(await generateOpenApiV2Json(), committed(OPENAPI_V2_FILE));
  });

  test('when the v2 client types are generated from it, then they equal the committed ones', async () => {
    assert.equal(await generateClientTypes(committed(OPENAPI_V2_FILE), OPENAPI_V2_FILE), committed(CLIENT_V2_TYPES_FILE));
  });

  test('when served at GET /v2/openapi.json without a key, then it is the committed document; /openapi.json stays v1', async (t) => {
    const { app } = await createTestApp(t, sqliteBackend, { config: PUBLISHED_CONFIG });
    const response = await app.inject({ method: 'GET', url: '/v2/openapi.json' });
    assert.equal(response.statusCode, 200);
    assert.match(String(response.headers['content-type']), /^application\/json/);
    assert.equal(response.body, committed(OPENAPI_V2_FILE));
    assert.equal((await app.inject({ method: 'GET', url: '/openapi.json' })).body, committed(OPENAPI_FILE));
  });

  test('when PUBLIC_BASE_URL and STAGING_BASE_URL are configured, then the v2 servers are the same URLs ending in /v2 and each document links the other', async (t) => {
    const { app } = await createTestApp(t, sqliteBackend, {
      config: { publicBaseUrl: 'https://api.shop.test/orders-api/v1', stagingBaseUrl: 'https://staging.shop.test/v1' },
    });
    const served = (await app.inject({ method: 'GET', url: '/v2/openapi.json' })).json<Document>();
    assert.deepEqual(served.servers.map((s) => s.url), ['https://api.shop.test/orders-api/v2', 'https://staging.shop.test/v2']);
    assert.equal(served.externalDocs.url, 'https://api.shop.test/orders-api/openapi.json');
    const servedV1 = (await app.inject({ method: 'GET', url: '/openapi.json' })).json<Document>();
    assert.deepEqual(servedV1.servers.map((s) => s.url), ['https://api.shop.test/orders-api/v1', 'https://staging.shop.test/v1']);
    assert.equal(servedV1.externalDocs.url, 'https://api.shop.test/orders-api/v2/openapi.json');
  });

  test('when read, then it is OpenAPI 3.1, a 2.0.0 pre-release, with production and staging servers ending in /v2 and paths relative to them', () => {
    assert.equal(doc.openapi, '3.1.0');
    assert.equal(doc.info.version, '2.0.0-beta.1');
    assert.match(doc.info.title, /v2 \(beta\)/);
    assert.deepEqual(doc.servers.map((s) => s.url), ['https://store.example.com/v2', 'https://staging.store.example.com/v2']);
    assert.match(doc.servers[0]?.description ?? '', /Production/);
    assert.match(doc.servers[1]?.description ?? '', /Staging/);
    assert.deepEqual(Object.keys(doc.paths), [
      '/store/orders',
      '/store/orders/{orderId}',
      '/audit-events',
      '/events',
      '/events/{eventId}',
      '/request-logs',
      '/webhook-endpoints',
      '/webhook-endpoints/{endpointId}',
      '/webhook-endpoints/{endpointId}/rotate-secret',
      '/webhook-endpoints/{endpointId}/deliveries',
      '/webhook-endpoints/{endpointId}/test',
      '/webhook-endpoints/{endpointId}/deliveries/{deliveryId}',
      '/webhook-endpoints/{endpointId}/recover',
      '/events/{eventId}/redeliver',
    ]);
    // v1 keeps its spec-mandated shape (section 1): servers ending in /v1, the same relative paths.
    for (const server of v1.servers) assert.match(server.url, /\/v1$/);
  });

  test('when read, then the two documents point at each other and say why they are separate', () => {
    assert.deepEqual(doc.externalDocs, { description: 'Orders API v1 (stable): its own OpenAPI document', url: 'https://store.example.com/openapi.json' });
    assert.deepEqual(v1.externalDocs, { description: 'Orders API v2 (beta): its own OpenAPI document', url: 'https://store.example.com/v2/openapi.json' });
    assert.match(doc.info.description, /## Why a separate document/);
    assert.match(doc.info.description, /spec section 1/);
    assert.match(v1.info.description, /`\/v2\/openapi.json`/);
  });

  test('when read, then one global HTTP bearer scheme applies to every operation, as in v1', () => {
    assert.deepEqual(doc.components.securitySchemes, v1.components.securitySchemes);
    assert.deepEqual(doc.security, [{ bearerAuth: [] }]);
  });

  test('when read, then every operation is x-stability beta with its own operationId and a defined tag', () => {
    const tags = new Set(doc.tags.map((t) => t.name));
    assert.deepEqual(
      operations.map(({ path, method, op }) => [method, path, op.operationId, op['x-stability'], op.tags]),
      [
        ['get', '/store/orders', 'listOrdersV2', 'beta', ['orders']],
        ['post', '/store/orders', 'placeOrder', 'beta', ['orders']],
        ['get', '/store/orders/{orderId}', 'getOrderV2', 'beta', ['orders']],
        ['delete', '/store/orders/{orderId}', 'cancelOrderV2', 'beta', ['orders']],
        ['get', '/audit-events', 'listAuditEvents', 'beta', ['audit']],
        ['get', '/events', 'listEvents', 'beta', ['events']],
        ['get', '/events/{eventId}', 'getEvent', 'beta', ['events']],
        ['get', '/request-logs', 'listRequestLogs', 'beta', ['request-logs']],
        ['get', '/webhook-endpoints', 'listWebhookEndpoints', 'beta', ['webhooks']],
        ['post', '/webhook-endpoints', 'createWebhookEndpoint', 'beta', ['webhooks']],
        ['get', '/webhook-endpoints/{endpointId}', 'getWebhookEndpoint', 'beta', ['webhooks']],
        ['delete', '/webhook-endpoints/{endpointId}', 'deleteWebhookEndpoint', 'beta', ['webhooks']],
        ['patch', '/webhook-endpoints/{endpointId}', 'updateWebhookEndpoint', 'beta', ['webhooks']],
        ['post', '/webhook-endpoints/{endpointId}/rotate-secret', 'rotateWebhookEndpointSecret', 'beta', ['webhooks']],
        ['get', '/webhook-endpoints/{endpointId}/deliveries', 'listWebhookDeliveries', 'beta', ['webhooks']],
        ['post', '/webhook-endpoints/{endpointId}/test', 'sendWebhookTestEvent', 'beta', ['webhooks']],
        ['get', '/webhook-endpoints/{endpointId}/deliveries/{deliveryId}', 'getWebhookDelivery', 'beta', ['webhooks']],
        ['post', '/webhook-endpoints/{endpointId}/recover', 'recoverWebhookDeliveries', 'beta', ['webhooks']],
        ['post', '/events/{eventId}/redeliver', 'redeliverEvent', 'beta', ['webhooks']],
      ],
    );
    assert.deepEqual([...tags], ['orders', 'audit', 'events', 'webhooks', 'request-logs']);
    for (const { op } of operations) for (const tag of op.tags as string[]) assert.ok(tags.has(tag), `tag ${tag} is defined`);
    const v1Ids = new Set(operationsOf(v1).map((o) => o.op.operationId));
    for (const { op } of operations) assert.ok(!v1Ids.has(op.operationId), `${String(op.operationId)} is not a v1 operationId`);
    for (const level of STABILITY_LEVELS) assert.match(doc.info.description + v1.info.description, new RegExp(`\`${level}\`: `));
  });

  test('when read, then each operation documents every status it can answer, each with an example of the Error record', () => {
    assert.deepEqual(Object.keys(operation('listOrdersV2').op.responses), ['200', '304', '400', '401', '403', '408', '429', '431', '500', '503']);
    assert.deepEqual(Object.keys(operation('getOrderV2').op.responses), ['200', '400', '401', '403', '404', '408', '429', '431', '500', '503']);
    assert.deepEqual(Object.keys(operation('placeOrder').op.responses), ['201', '400', '401', '403', '408', '409', '413', '422', '429', '431', '500', '503']);
    assert.deepEqual(Object.keys(operation('cancelOrderV2').op.responses), ['204', '400', '401', '403', '404', '408', '409', '413', '429', '431', '500', '503']);
    for (const { op } of operations) {
      for (const [status, response] of Object.entries(op.responses)) {
        if (status === '204' || status === '304') {
          assert.equal(response.content, undefined, `${String(op.operationId)} ${status} has no body`);
          continue;
        }
        const body = media(response);
        assert.ok(body !== undefined);
        const examples = body.example === undefined ? Object.values(body.examples as Record<string, { value: Json }>).map((e) => e.value) : [body.example as Json];
        assert.ok(examples.length > 0, `${String(op.operationId)} ${status} has an example`);
        if (status.startsWith('2')) continue;
        assert.deepEqual(body.schema, { $ref: '#/components/schemas/Error' });
        for (const example of examples) {
          assert.equal(example.status, Number(status));
          assert.ok((ERROR_CODES as unknown[]).includes(example.code));
        }
      }
    }
  });

  test('when read, then the 409 of cancelOrderV2 shows both codes and the 400 of listOrdersV2 both of its codes', () => {
    const codes = (response: Json | undefined) => Object.values(media(response)?.examples as Record<string, { value: { code: string } }>).map((e) => e.value.code);
    assert.deepEqual(codes(operation('cancelOrderV2').op.responses['409']), ['order_already_shipped', 'order_already_cancelled']);
    assert.deepEqual(codes(operation('listOrdersV2').op.responses['400']), ['validation_failed', 'invalid_cursor']);
    const notFound = media(operation('getOrderV2').op.responses['404'])?.example as Json;
    assert.equal(notFound.code, 'order_not_found');
  });

  test('when read, then the listing documents its filters, limit and cursor with their wire types, and If-None-Match', () => {
    const parameters = (operation('listOrdersV2').op.parameters as Json[]).map(({ name, in: where, required, schema }) => ({ name, where, required, schema }));
    assert.deepEqual(parameters, [
      {
        name: 'status',
        where: 'query',
        required: false,
        schema: {
          type: 'array',
          items: { type: 'string', enum: ['pending', 'shipped', 'cancelled'], description: 'one of pending, shipped, cancelled, each at most once.' },
          uniqueItems: true,
          maxItems: 3,
        },
      },
      { name: 'petId', where: 'query', required: false, schema: { type: 'integer', format: 'int64' } },
      { name: 'complete', where: 'query', required: false, schema: { type: 'boolean' } },
      { name: 'shipDateFrom', where: 'query', required: false, schema: { type: 'string', format: 'date-time', maxLength: 64 } },
      { name: 'shipDateTo', where: 'query', required: false, schema: { type: 'string', format: 'date-time', maxLength: 64 } },
      { name: 'limit', where: 'query', required: false, schema: { type: 'integer', format: 'int32', minimum: 1, maximum: 500, default: 50 } },
      { name: 'cursor', where: 'query', required: false, schema: { type: 'string', minLength: 1, maxLength: 512 } },
      { name: 'if-none-match', where: 'header', required: false, schema: { type: 'string' } },
    ]);
    // A form-style query array, repeated: status=pending&status=shipped (the OpenAPI default, so not spelled out).
    const status = (operation('listOrdersV2').op.parameters as Json[])[0];
    assert.equal(status?.style ?? 'form', 'form');
    assert.equal(status?.explode ?? true, true);
  });

  test('when read, then orderId is an int64 integer path parameter of getOrderV2 and cancelOrderV2', () => {
    for (const id of ['getOrderV2', 'cancelOrderV2']) {
      assert.deepEqual((operation(id).op.parameters as Json[]).map(({ name, in: where, required, schema }) => ({ name, where, required, schema })), [
        { name: 'orderId', where: 'path', required: true, schema: { type: 'integer', format: 'int64' } },
      ]);
    }
  });

  test('when read, then a page is {data: OrderV2[] (at most 500), nextCursor: string | null}, with ETag and Link headers', () => {
    const ok = operation('listOrdersV2').op.responses['200'];
    assert.deepEqual(media(ok)?.schema, { $ref: '#/components/schemas/OrdersPage' });
    assert.deepEqual(Object.keys(ok?.headers ?? {}).filter((h) => ['ETag', 'Cache-Control', 'Vary', 'Link'].includes(h)).sort(), ['Cache-Control', 'ETag', 'Link', 'Vary']);
    const page = doc.components.schemas.OrdersPage;
    assert.deepEqual(page?.required, ['data', 'nextCursor']);
    assert.deepEqual(page?.properties.data, {
      type: 'array',
      items: { $ref: '#/components/schemas/OrderV2' },
      maxItems: 500,
      description: 'The orders of this page, by id: at most limit (at most 500).',
    });
    assert.deepEqual((page?.properties.nextCursor?.anyOf as Json[]).map((s) => s.type), ['string', 'null']);
    assert.deepEqual(media(operation('getOrderV2').op.responses['200'])?.schema, { $ref: '#/components/schemas/OrderV2' });
  });

  test('when read, then OrderV2 is the v1 Order plus a status, with id, status and complete always present and int64 ids', () => {
    const order = doc.components.schemas.OrderV2;
    assert.ok(order !== undefined);
    assert.deepEqual(Object.keys(order.properties).sort(), ['complete', 'id', 'petId', 'quantity', 'shipDate', 'status']);
    assert.deepEqual(order.required, ['id', 'status', 'complete']);
    assert.equal(order.properties.id?.format, 'int64');
    assert.equal(order.properties.petId?.format, 'int64');
    assert.deepEqual(order.properties.status?.enum, ['pending', 'shipped', 'cancelled']);
    const v1Order = v1.components.schemas.Order;
    for (const field of ['id', 'petId', 'quantity', 'shipDate', 'complete']) {
      assert.deepEqual(order.properties[field], v1Order?.properties[field], field);
    }
    assert.deepEqual(doc.components.schemas.Error, v1.components.schemas.Error);
    assert.deepEqual(doc.components.schemas.Error?.properties.code?.enum, ERROR_CODES);
    for (const code of ERROR_CODES) assert.match(doc.info.description, new RegExp(`\`${code}\``));
  });
});

describe('conditional GET in both documents', () => {
  for (const [name, document, id] of [['v1', v1, 'listOrders'], ['v2', doc, 'listOrdersV2']] as const) {
    test(`when the ${name} listing is read, then it takes If-None-Match and documents ETag, Cache-Control and Vary on 200 and on 304 (no body)`, () => {
      const { op } = operation(id, document);
      assert.ok((op.parameters as Json[]).some((p) => p.in === 'header' && p.name === 'if-none-match'));
      for (const status of ['200', '304']) {
        const headers = op.responses[status]?.headers ?? {};
        for (const header of ['ETag', 'Cache-Control', 'Vary']) assert.ok(header in headers, `${status} ${header}`);
        // A header every response declares alike is a shared component, referenced by $ref.
        const ref = headers.ETag?.$ref;
        const etag = typeof ref === 'string' ? ((document as unknown as { components: { headers: Record<string, Json> } }).components.headers[ref.split('/').pop() ?? ''] ?? {}) : (headers.ETag ?? {});
        assert.match(String((etag.schema as Json).pattern), /^\^"/);
      }
      assert.equal(op.responses['304']?.content, undefined);
    });
  }
});

describe('the audit trail in the v2 document', () => {
  test('when read, then listAuditEvents takes limit and cursor, needs audit:read and answers the {data, nextCursor} page of AuditEvent', () => {
    const { op } = operation('listAuditEvents');
    assert.deepEqual((op.parameters as Json[]).map(({ name, in: where, required, schema }) => ({ name, where, required, schema })), [
      { name: 'limit', where: 'query', required: false, schema: { type: 'integer', format: 'int32', minimum: 1, maximum: 200, default: 50 } },
      { name: 'cursor', where: 'query', required: false, schema: { type: 'string', minLength: 1, maxLength: 512 } },
    ]);
    assert.deepEqual(Object.keys(op.responses), ['200', '400', '401', '403', '408', '429', '431', '500', '503']);
    assert.match(JSON.stringify(op.responses['403']), /audit:read/);
    assert.deepEqual(media(op.responses['200'])?.schema, { $ref: '#/components/schemas/AuditEventsPage' });
    const page = doc.components.schemas.AuditEventsPage;
    assert.deepEqual(page?.required, ['data', 'nextCursor']);
    assert.deepEqual(page?.properties.data?.items, { $ref: '#/components/schemas/AuditEvent' });
    const event = doc.components.schemas.AuditEvent;
    assert.deepEqual(event?.required, ['id', 'at', 'action', 'actor', 'details']);
    assert.ok((event?.properties.action?.enum as string[]).includes('authn_token_created'));
  });
});

describe('the request logs in the v2 document', () => {
  test('when read, then listRequestLogs takes its filters, limit and cursor, needs logs:read and answers the {data, nextCursor} page of RequestLog with examples', () => {
    const { op } = operation('listRequestLogs');
    assert.deepEqual(
      (op.parameters as Json[]).map(({ name }) => name),
      ['status', 'method', 'path', 'requestId', 'keyId', 'since', 'until', 'limit', 'cursor'],
    );
    assert.deepEqual(Object.keys(op.responses), ['200', '400', '401', '403', '408', '429', '431', '500', '503']);
    assert.match(JSON.stringify(op.responses['403']), /logs:read/);
    assert.deepEqual(media(op.responses['200'])?.schema, { $ref: '#/components/schemas/RequestLogsPage' });
    const page = doc.components.schemas.RequestLogsPage;
    assert.deepEqual(page?.required, ['data', 'nextCursor']);
    assert.deepEqual(page?.properties.data?.items, { $ref: '#/components/schemas/RequestLog' });
    assert.ok(JSON.stringify(media(op.responses['200'])).includes('order_already_shipped'), 'the example page shows an error answer');
    const log = doc.components.schemas.RequestLog;
    assert.deepEqual(log?.required, ['id', 'at', 'method', 'path', 'status', 'durationMs', 'requestId']);
    assert.deepEqual(log?.properties.response, { $ref: '#/components/schemas/Error' });
  });
});
