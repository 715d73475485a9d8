import assert from 'node:assert/strict';
import { test } from 'node:test';
import Fastify from 'fastify';
import { registerOpenApi } from '../../src/openapi/openapi-document.js';
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
