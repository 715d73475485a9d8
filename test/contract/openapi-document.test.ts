import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { CLIENT_TYPES_FILE, generateClientTypes, generateOpenApiJson, OPENAPI_FILE, PUBLISHED_SERVERS } from '../../scripts/contract-files.js';
import { testConfig } from '../support/container.js';
import { ERROR_CODES } from '../../src/errors/errors.js';
import { INT64_NOTE, STABILITY_LEVELS } from '../../src/openapi/openapi-document.js';
import { createTestApp } from '../support/app.js';
import { sqliteBackend } from '../support/storage.js';

/** The servers the committed documents publish, configured. */
const PUBLISHED_CONFIG = testConfig(PUBLISHED_SERVERS);

const committed = (file: string) => readFileSync(new URL(`../../${file}`, import.meta.url), 'utf8');

type Json = Record<string, unknown>;
const doc = JSON.parse(committed(OPENAPI_FILE)) as {
  openapi: string;
  info: { version: string; description: string };
  servers: { url: string; description: string }[];
  tags: { name: string }[];
  security: Json[];
  paths: Record<string, Record<string, Json & { responses: Record<string, Json> }>>;
  components: { schemas: Record<string, Json & { properties: Record<string, Json>; required?: string[] }>; securitySchemes: Json };
};
const operations = Object.entries(doc.paths).flatMap(([path, item]) => Object.entries(item).map(([method, op]) => ({ path, method, op })));
const operation = (id: string) => {
  const found = operations.find((o) => o.op.operationId === id);
  if (found === undefined) throw new Error(`no operation ${id}`);
  return found;
};

describe('the committed OpenAPI document', () => {
  test('when the code generates the document, then it equals openapi/openapi.json (run `npm run openapi` after changing a route)', async () => {
    assert.equal(await generateOpenApiJson(), committed(OPENAPI_FILE));
  });

  test('when the client types are generated from the document, then they equal the committed ones', async () => {
    assert.equal(await generateClientTypes(committed(OPENAPI_FILE)), committed(CLIENT_TYPES_FILE));
  });

  test('when served at GET /openapi.json without a key, then it is the committed document', async (t) => {
    const { app } = await createTestApp(t, sqliteBackend, { config: PUBLISHED_CONFIG });
    const response = await app.inject({ method: 'GET', url: '/openapi.json' });
    assert.equal(response.statusCode, 200);
    assert.match(String(response.headers['content-type']), /^application\/json/);
    assert.equal(response.body, committed(OPENAPI_FILE));
  });

  test('when PUBLIC_BASE_URL and STAGING_BASE_URL are configured, then the served servers use them', async (t) => {
    const { app } = await createTestApp(t, sqliteBackend, {
      config: { publicBaseUrl: 'https://api.shop.test/v1', stagingBaseUrl: 'https://staging.shop.test/v1' },
    });
    const served = (await app.inject({ method: 'GET', url: '/openapi.json' })).json<{ servers: { url: string }[] }>();
    assert.deepEqual(served.servers.map((s) => s.url), ['https://api.shop.test/v1', 'https://staging.shop.test/v1']);
  });

  test('when PUBLIC_BASE_URL is not set, then the served documents name the address the server listens on (v1 and v2) and no staging server', async (t) => {
    const { app } = await createTestApp(t, sqliteBackend);
    const origin = await app.listen({ host: '127.0.0.1', port: 0 });
    const v1 = (await (await fetch(`${origin}/openapi.json`)).json()) as { servers: { url: string }[]; externalDocs: { url: string } };
    const v2 = (await (await fetch(`${origin}/v2/openapi.json`)).json()) as { servers: { url: string }[]; externalDocs: { url: string } };
    assert.deepEqual(v1.servers.map((s) => s.url), [`${origin}/v1`]);
    assert.equal(v1.externalDocs.url, `${origin}/v2/openapi.json`);
    assert.deepEqual(v2.servers.map((s) => s.url), [`${origin}/v2`]);
    assert.equal(v2.externalDocs.url, `${origin}/openapi.json`);
  });

  test('when only STAGING_BASE_URL is set, then the documents name this server first and the staging server second', async (t) => {
    const { app } = await createTestApp(t, sqliteBackend, { config: { stagingBaseUrl: 'https://staging.shop.test/v1' } });
    const origin = await app.listen({ host: '127.0.0.1', port: 0 });
    const v1 = (await (await fetch(`${origin}/openapi.json`)).json()) as { servers: { url: string; description: string }[] };
    assert.deepEqual(v1.servers.map((s) => s.url), [`${origin}/v1`, 'https://staging.shop.test/v1']);
    assert.match(v1.servers[0]?.description ?? '', /PUBLIC_BASE_URL is not set/);
  });

  test('when any committed document is read, then its licence is MIT as the repository\'s LICENSE says, and the client it names is @store-orders/client', () => {
    assert.match(committed('LICENSE'), /^MIT License/);
    for (const file of [OPENAPI_FILE, 'openapi/openapi-v2.json', 'openapi/quickstart-openapi.json']) {
      const read = JSON.parse(committed(file)) as { info: { license: { name: string; url: string }; description: string } };
      assert.deepEqual(read.info.license, { name: 'MIT', url: 'https://spdx.org/licenses/MIT.html' }, file);
      assert.doesNotMatch(read.info.description, /(?<!@)store-orders\/client/, file);
    }
    assert.match(doc.info.description, /`@store-orders\/client`/);
  });

  test('when any committed document is read, then every int64 field and parameter says in its description that it may exceed 2^53 and must be parsed exactly', () => {
    for (const file of [OPENAPI_FILE, 'openapi/openapi-v2.json', 'openapi/quickstart-openapi.json']) {
      const found: string[] = [];
      const missing: string[] = [];
      const visit = (node: unknown, where: string): void => {
        if (Array.isArray(node)) return node.forEach((item, i) => visit(item, `${where}/${i}`));
        if (typeof node !== 'object' || node === null) return;
        const object = node as Json;
        const parameterSchema = object.schema as Json | undefined;
        if (typeof object.in === 'string' && parameterSchema?.format === 'int64') {
          found.push(where);
          if (!String(object.description).includes(INT64_NOTE)) missing.push(where);
          return;
        }
        if (object.format === 'int64') {
          found.push(where);
          if (!String(object.description).includes(INT64_NOTE)) missing.push(where);
        }
        for (const [key, value] of Object.entries(object)) visit(value, `${where}/${key}`);
      };
      visit(JSON.parse(committed(file)), file);
      assert.deepEqual(missing, [], file);
      if (file !== 'openapi/quickstart-openapi.json') assert.ok(found.length >= 3, `${file} has int64 fields and parameters: ${found.join(', ')}`);
    }
    assert.match(INT64_NOTE, /^int64: may exceed 2\^53/);
  });

  test('when read, then it is OpenAPI 3.1 version 1.0.0 with production and staging servers carrying /v1', () => {
    assert.equal(doc.openapi, '3.1.0');
    assert.equal(doc.info.version, '1.0.0');
    assert.equal(doc.servers.length, 2);
    assert.match(doc.servers[0]?.description ?? '', /Production/);
    assert.match(doc.servers[1]?.description ?? '', /Staging/);
    for (const server of doc.servers) assert.match(server.url, /\/v1$/);
    assert.deepEqual(Object.keys(doc.paths).sort(), ['/pets/{petId}', '/store/orders', '/store/orders/{orderId}']);
  });

  test('when read, then one global HTTP bearer scheme applies to every operation', () => {
    assert.deepEqual(doc.components.securitySchemes, {
      bearerAuth: { type: 'http', scheme: 'bearer', description: 'The API key, sent as `Authorization: Bearer <API key>`.' },
    });
    assert.deepEqual(doc.security, [{ bearerAuth: [] }]);
  });

  test('when read, then every operation has an operationId, defined tags and a documented x-stability; orders are stable', () => {
    const tags = new Set(doc.tags.map((t) => t.name));
    for (const { op } of operations) {
      assert.equal(typeof op.operationId, 'string');
      for (const tag of op.tags as string[]) assert.ok(tags.has(tag), `tag ${tag} is defined`);
      assert.ok((STABILITY_LEVELS as readonly unknown[]).includes(op['x-stability']));
    }
    for (const level of STABILITY_LEVELS) assert.match(doc.info.description, new RegExp(`\`${level}\`: `));
    assert.deepEqual(operation('listOrders').op.tags, ['orders']);
    assert.equal(operation('listOrders').op['x-stability'], 'stable');
    assert.equal(operation('cancelOrder').op['x-stability'], 'stable');
    assert.equal(operation('cancelOrder').method, 'delete');
  });

  test('when read, then listOrders and cancelOrder document every status they can answer, each with an example', () => {
    assert.deepEqual(Object.keys(operation('listOrders').op.responses), ['200', '304', '401', '403', '408', '429', '431', '500', '503']);
    assert.deepEqual(Object.keys(operation('cancelOrder').op.responses), ['204', '400', '401', '403', '404', '408', '409', '413', '429', '431', '500', '503']);
    assert.deepEqual(Object.keys(operation('getPet').op.responses), ['200', '400', '401', '403', '404', '408', '410', '429', '431', '500', '503']);
    for (const { op } of operations) {
      for (const [status, response] of Object.entries(op.responses)) {
        if (status === '204' || status === '304') {
          assert.equal(response.content, undefined);
          continue;
        }
        const media = (response.content as Record<string, Json>)['application/json'];
        assert.ok(media?.example !== undefined, `${String(op.operationId)} ${status} has an example`);
        if (status !== '200') {
          assert.deepEqual(media.schema, { $ref: '#/components/schemas/Error' });
          assert.equal((media.example as Json).status, Number(status));
        }
      }
    }
  });

  test('when read, then orderId is an int64 integer path parameter, not a string', () => {
    assert.deepEqual((operation('cancelOrder').op.parameters as Json[]).map(({ name, in: where, required, schema }) => ({ name, where, required, schema })), [
      { name: 'orderId', where: 'path', required: true, schema: { type: 'integer', format: 'int64' } },
    ]);
  });

  test('when read, then Order has five optional fields with int64 ids and Error requires all three of its fields', () => {
    const order = doc.components.schemas.Order;
    assert.ok(order !== undefined);
    assert.deepEqual(Object.keys(order.properties), ['id', 'petId', 'quantity', 'shipDate', 'complete']);
    assert.equal(order.required, undefined);
    assert.equal(order.properties.id?.format, 'int64');
    assert.equal(order.properties.petId?.format, 'int64');
    const error = doc.components.schemas.Error;
    assert.deepEqual(error?.required, ['code', 'message', 'status']);
  });

  test('when read, then the Error code enum is exactly the closed set of codes in src/errors', () => {
    assert.deepEqual(doc.components.schemas.Error?.properties.code?.enum, ERROR_CODES);
    for (const code of ERROR_CODES) assert.match(doc.info.description, new RegExp(`\`${code}\``));
  });

  test('when read, then the pet lookup is deprecated and documents its Deprecation, Sunset and Link headers', () => {
    const { path, op } = operation('getPet');
    assert.equal(path, '/pets/{petId}');
    assert.equal(op.deprecated, true);
    for (const [status, response] of Object.entries(op.responses)) {
      // 408 and 431 come from Node's parser, before any route (and its deprecation headers) is chosen.
      if (status === '408' || status === '431') continue;
      assert.deepEqual(Object.keys(response.headers as Json).filter((h) => ['Deprecation', 'Sunset', 'Link'].includes(h)), ['Deprecation', 'Sunset', 'Link']);
    }
  });
});
