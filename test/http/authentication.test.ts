import assert from 'node:assert/strict';
import { testConfig } from '../support/container.js';
import { connect, type AddressInfo } from 'node:net';
import { describe, test } from 'node:test';
import { generateApiKey } from '../../src/api-keys/api-key-format.js';
import { routeTable } from '../../src/http/route-table.js';
import { V2_DOCUMENT } from '../../src/hosts/store/store-openapi.js';
import { createTestApp, errorBody, type TestApp } from '../support/app.js';
import { httpBackends } from '../support/storage.js';

/**
 * Every route under /v1 and /v2, with path parameters filled in: all of them
 * must require a key, except the v2 OpenAPI document (public, like /openapi.json).
 */
function protectedRoutes(app: TestApp['app']): { method: 'GET' | 'DELETE' | 'POST' | 'PUT' | 'PATCH'; url: string }[] {
  const routes = routeTable(app)
    .filter((r) => (r.url.startsWith('/v1/') || r.url.startsWith('/v2/')) && r.url !== V2_DOCUMENT.path)
    .flatMap((r) =>
      r.methods
        .filter((m): m is 'GET' | 'DELETE' | 'POST' | 'PUT' | 'PATCH' => ['GET', 'DELETE', 'POST', 'PUT', 'PATCH'].includes(m))
        .map((method) => ({ method, url: r.url.replace(/:[A-Za-z]+/g, '1') })),
    );
  assert.ok(routes.length >= 2, 'expected at least the two orders operations');
  assert.ok(routes.some((r) => r.url.startsWith('/v2/')), 'the v2 (beta) operations are covered too');
  return routes;
}

function assertUnauthorized(
  response: { statusCode: number; headers: Record<string, unknown>; body: string },
  code: 'missing_api_key' | 'invalid_api_key',
  label: string,
) {
  assert.equal(response.statusCode, 401, label);
  assert.equal(errorBody(response).code, code, label);
  const challenge = String(response.headers['www-authenticate']);
  assert.match(challenge, /^Bearer realm="store-orders"/, label);
  if (code === 'invalid_api_key') assert.match(challenge, /error="invalid_token"/, label);
  else assert.doesNotMatch(challenge, /error=/, label);
}

for (const backend of httpBackends()) {
  describe(`bearer authentication on every protected route (${backend.name})`, () => {
    test('when no Authorization header is sent, then 401 missing_api_key with a Bearer challenge', async (t) => {
      const { app } = await createTestApp(t, backend);
      for (const route of protectedRoutes(app)) {
        assertUnauthorized(await app.inject(route), 'missing_api_key', `${route.method} ${route.url}`);
      }
    });

    test('when the key is malformed, has a bad checksum, is unknown or uses another scheme, then 401 invalid_api_key', async (t) => {
      // Six refused keys on every route: more than one address may send unauthenticated in a window (a 429 is tested in rate-limit.test.ts).
      const { app, tenant } = await createTestApp(t, backend, { limits: { ...testConfig().limits, rateLimit: { requests: 0, windowSeconds: 60 } } });
      const { key } = await tenant();
      const lastChar = key.at(-1) === 'A' ? 'B' : 'A';
      const candidates = {
        garbage: 'Bearer not-a-key',
        empty: 'Bearer ',
        'bad checksum': `Bearer ${key.slice(0, -1)}${lastChar}`,
        'unknown but well-formed': `Bearer ${generateApiKey('production').key}`,
        'basic scheme': `Basic ${Buffer.from(`user:${key}`).toString('base64')}`,
        'key without scheme': key,
      };
      for (const route of protectedRoutes(app)) {
        for (const [label, authorization] of Object.entries(candidates)) {
          const response = await app.inject({ ...route, headers: { authorization } });
          assertUnauthorized(response, 'invalid_api_key', `${label}: ${route.method} ${route.url}`);
          assert.ok(!response.body.includes(key.slice(12)), 'the key must not be echoed');
        }
      }
    });

    test('when the scheme name is written in any case, then the key is accepted', async (t) => {
      const { app, tenant } = await createTestApp(t, backend);
      const { key } = await tenant();
      for (const scheme of ['Bearer', 'bearer', 'BEARER', 'bEaReR']) {
        const response = await app.inject({ method: 'GET', url: '/v1/store/orders', headers: { authorization: `${scheme} ${key}` } });
        assert.equal(response.statusCode, 200, scheme);
      }
    });

    test('when the key is revoked, then the very next request is 401', async (t) => {
      const { app, services, tenant } = await createTestApp(t, backend);
      const { auth, account } = await tenant();
      assert.equal((await app.inject({ method: 'GET', url: '/v1/store/orders', headers: auth })).statusCode, 200);
      const [keyRecord] = await services.apiKeys.listKeys(account.id);
      assert.ok(keyRecord);
      await services.apiKeys.revokeKey(keyRecord.id);
      for (const route of protectedRoutes(app)) {
        assertUnauthorized(await app.inject({ ...route, headers: auth }), 'invalid_api_key', `${route.method} ${route.url}`);
      }
    });

    test('when a staging key is sent to production, then 401 saying which environment it belongs to', async (t) => {
      const { app } = await createTestApp(t, backend);
      const staging = generateApiKey('staging').key;
      const response = await app.inject({ method: 'GET', url: '/v1/store/orders', headers: { authorization: `Bearer ${staging}` } });
      assertUnauthorized(response, 'invalid_api_key', 'staging key');
      assert.match(errorBody(response).message, /staging/);
    });

    test('when the server runs as staging, then staging keys work and production keys do not', async (t) => {
      const { app, tenant } = await createTestApp(t, backend, { environment: 'staging' });
      const { key, auth } = await tenant();
      assert.match(key, /^so_stg_/);
      assert.equal((await app.inject({ method: 'GET', url: '/v1/store/orders', headers: auth })).statusCode, 200);
      const production = generateApiKey('production').key;
      const response = await app.inject({ method: 'GET', url: '/v1/store/orders', headers: { authorization: `Bearer ${production}` } });
      assertUnauthorized(response, 'invalid_api_key', 'production key on staging');
    });

    test('when the key is only in the query string, then it is not accepted', async (t) => {
      const { app, tenant } = await createTestApp(t, backend);
      const { key } = await tenant();
      for (const name of ['api_key', 'access_token', 'key', 'token']) {
        const response = await app.inject({ method: 'GET', url: `/v1/store/orders?${name}=${key}` });
        assertUnauthorized(response, 'missing_api_key', name);
      }
    });

    test('when a malformed key is sent while storage is down, then still 401: it is refused before storage is consulted', async (t) => {
      const { app, storage } = await createTestApp(t, backend);
      await storage.close();
      const response = await app.inject({ method: 'GET', url: '/v1/store/orders', headers: { authorization: 'Bearer so_prod_123' } });
      assertUnauthorized(response, 'invalid_api_key', 'malformed key');
    });

    test('when two Authorization headers are sent, then 401 and neither key is served', async (t) => {
      const { app, tenant } = await createTestApp(t, backend);
      const first = await tenant();
      const second = await tenant();
      await app.listen({ host: '127.0.0.1', port: 0 });
      const { port } = app.server.address() as AddressInfo;
      const raw = await new Promise<string>((resolve, reject) => {
        let text = '';
        const socket = connect(port, '127.0.0.1', () => {
          socket.write(
            'GET /v1/store/orders HTTP/1.1\r\nHost: localhost\r\n' +
              `Authorization: Bearer ${first.key}\r\nAuthorization: Bearer ${second.key}\r\nConnection: close\r\n\r\n`,
          );
        });
        socket.setEncoding('utf8');
        socket.on('data', (chunk: string) => (text += chunk));
        socket.on('end', () => resolve(text));
        socket.on('error', reject);
      });
      const [head = '', body = ''] = raw.split('\r\n\r\n');
      const [statusLine = '', ...headerLines] = head.split('\r\n');
      const headers = Object.fromEntries(
        headerLines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]),
      );
      const response = { statusCode: Number(statusLine.split(' ')[1]), headers, body };
      assertUnauthorized(response, 'invalid_api_key', 'two headers');
    });
  });
}
