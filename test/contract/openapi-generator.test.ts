import assert from 'node:assert/strict';
import { test, type TestContext } from 'node:test';
import Fastify from 'fastify';
import { documentedAs, INT64_NOTE, openApiJson, registerOpenApi } from '../../src/openapi/openapi-document.js';
import { INT64_DECIMAL_PATTERN } from '../../src/shared/int64.js';

const options = {
  info: { title: 'Example', version: '0.1.0', description: 'A host reusing the generator.' },
  servers: [{ url: 'https://example.test/api', description: 'Example' }],
  tags: [{ name: 'things', description: 'Things.' }],
};

test('when a host reuses the generator, then its info, servers and tags are used and routes outside its base path are left out', async (t) => {
  const app = Fastify();
  t.after(() => app.close());
  await registerOpenApi(app, options);
  app.get('/healthz', async () => 'ok');
  app.get(
    '/api/things/:thingId',
    {
      schema: {
        operationId: 'getThing',
        tags: ['things'],
        'x-stability': 'experimental',
        params: { type: 'object', properties: { thingId: { type: 'string', pattern: INT64_DECIMAL_PATTERN, description: 'An id.' } } },
      } as never,
    },
    async () => 'thing',
  );
  await app.ready();
  const doc = app.swagger() as unknown as {
    info: unknown;
    servers: unknown;
    tags: unknown;
    paths: Record<string, { get: { 'x-stability': string; parameters: { schema: unknown }[] } }>;
  };
  assert.deepEqual(doc.info, options.info);
  assert.deepEqual(doc.servers, options.servers);
  assert.deepEqual(doc.tags, options.tags);
  assert.deepEqual(Object.keys(doc.paths), ['/things/{thingId}']);
  assert.equal(doc.paths['/things/{thingId}']?.get['x-stability'], 'experimental');
  assert.deepEqual(doc.paths['/things/{thingId}']?.get.parameters[0]?.schema, { type: 'integer', format: 'int64' });
});

test('when a documented route lacks x-stability, then generating the document throws and names the route', async (t) => {
  const app = Fastify();
  t.after(() => app.close());
  await registerOpenApi(app, options);
  app.get('/api/things', { schema: { operationId: 'listThings', tags: ['things'] } }, async () => []);
  await app.ready();
  assert.throws(() => app.swagger(), /\/api\/things \(listThings\) must declare x-stability/);
});

/** A host with one document per version prefix, as the store host has (v1 and v2). */
async function twoVersions(t: TestContext) {
  const app = Fastify();
  t.after(() => app.close());
  await registerOpenApi(app, { ...options, servers: [{ url: 'https://example.test/v1', description: 'v1' }] });
  await registerOpenApi(app, { ...options, servers: [{ url: 'https://example.test/v2', description: 'v2' }], decorator: 'swaggerV2' });
  return app;
}

const documented = (operationId: string, extra: Record<string, unknown> = {}) =>
  ({ operationId, tags: ['things'], 'x-stability': 'beta', ...extra }) as never;

test('when a host has one document per version prefix, then each document holds its own routes, relative to its servers', async (t) => {
  const app = await twoVersions(t);
  app.get('/v1/things', { schema: documented('listThings') }, async () => []);
  app.get(
    '/v2/things',
    {
      schema: documented('listThingsV2', {
        querystring: {
          type: 'object',
          properties: {
            ownerId: { type: 'string', pattern: INT64_DECIMAL_PATTERN, description: 'An owner.' },
            big: documentedAs({ type: 'string', enum: ['true', 'false'], description: 'Big ones only.' }, { type: 'boolean' }),
            plain: { type: 'string', maxLength: 5 },
          },
        },
      }),
    },
    async () => [],
  );
  await app.ready();
  const v1 = JSON.parse(openApiJson(app)) as { paths: Record<string, { get: { operationId: string } }> };
  const v2 = JSON.parse(openApiJson(app, 'swaggerV2')) as { paths: Record<string, { get: { operationId: string; parameters: { name: string; schema: unknown; description?: string }[] } }> };
  assert.deepEqual(Object.keys(v1.paths), ['/things']);
  assert.equal(v1.paths['/things']?.get.operationId, 'listThings');
  assert.deepEqual(Object.keys(v2.paths), ['/things']);
  assert.equal(v2.paths['/things']?.get.operationId, 'listThingsV2');
  assert.deepEqual(
    v2.paths['/things']?.get.parameters.map(({ name, schema, description }) => ({ name, schema, description })),
    [
      // The generator says on every int64 parameter that it must be parsed exactly (issue 19 #8).
      { name: 'ownerId', schema: { type: 'integer', format: 'int64' }, description: `An owner. ${INT64_NOTE}` },
      { name: 'big', schema: { type: 'boolean' }, description: 'Big ones only.' },
      { name: 'plain', schema: { type: 'string', maxLength: 5 }, description: undefined },
    ],
  );
});

test('when a documented query parameter is marked with documentedAs, then the validator still checks the text it receives', async (t) => {
  const app = await twoVersions(t);
  const big = documentedAs({ type: 'string', enum: ['true', 'false'] }, { type: 'boolean' });
  app.get('/v2/things', { schema: documented('listThingsV2', { querystring: { type: 'object', properties: { big } } }) }, async (request) => request.query);
  assert.equal((await app.inject({ method: 'GET', url: '/v2/things?big=true' })).body, '{"big":"true"}');
  assert.equal((await app.inject({ method: 'GET', url: '/v2/things?big=yes' })).statusCode, 400);
});

for (const [what, schema, message] of [
  ['lacks x-stability', { operationId: 'listThingsV2', tags: ['things'] }, /\/v2\/things \(listThingsV2\) must declare x-stability/],
  ['lacks an operationId', { tags: ['things'], 'x-stability': 'beta' }, /\/v2\/things must declare an operationId and tags/],
  ['lacks tags', { operationId: 'listThingsV2', 'x-stability': 'beta' }, /\/v2\/things must declare an operationId and tags/],
  ['has no schema at all', undefined, /\/v2\/things must declare a schema/],
] as const) {
  test(`when a /v2 route ${what}, then generating the v2 document throws and names the route; the v1 document is unaffected`, async (t) => {
    const app = await twoVersions(t);
    app.get('/v1/things', { schema: documented('listThings') }, async () => []);
    app.get('/v2/things', schema === undefined ? {} : { schema: schema as never }, async () => []);
    await app.ready();
    assert.throws(() => openApiJson(app, 'swaggerV2'), message);
    assert.match(openApiJson(app), /listThings/);
  });
}
