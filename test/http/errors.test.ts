import assert from 'node:assert/strict';
import { connect, type AddressInfo } from 'node:net';
import { Database } from '../../src/storage/sqlite/sqlite-driver.js';
import { describe, test } from 'node:test';
import { ERROR_CODES, ERROR_STATUS } from '../../src/errors/errors.js';
import { createTestApp, errorBody } from '../support/app.js';
import { httpBackends, sqliteBackend } from '../support/storage.js';

for (const backend of httpBackends()) {
  describe(`errors, request ids and probes (${backend.name})`, () => {
    test('when a path matches no route, then 404 route_not_found as an Error record', async (t) => {
      const { app, tenant } = await createTestApp(t, backend);
      const { auth } = await tenant();
      for (const url of ['/', '/nope', '/v1', '/v1/store', '/v1/store/orders/1/extra', '/v2/store/orders/1/extra', '/v3/store/orders', '/store/orders']) {
        const response = await app.inject({ method: 'GET', url, headers: auth });
        assert.equal(response.statusCode, 404, url);
        assert.equal(errorBody(response).code, 'route_not_found', url);
      }
    });

    test('when a known path is called with another method, then 405 with Allow, as an Error record', async (t) => {
      const { app, tenant } = await createTestApp(t, backend);
      const { auth } = await tenant();
      const cases = [
        { method: 'POST', url: '/v1/store/orders', allow: 'GET, HEAD' },
        { method: 'PUT', url: '/v1/store/orders', allow: 'GET, HEAD' },
        { method: 'DELETE', url: '/v1/store/orders', allow: 'GET, HEAD' },
        { method: 'GET', url: '/v1/store/orders/5', allow: 'DELETE' },
        { method: 'PATCH', url: '/v1/store/orders/5', allow: 'DELETE' },
        { method: 'OPTIONS', url: '/v1/store/orders/5?x=1', allow: 'DELETE' },
        { method: 'POST', url: '/healthz', allow: 'GET, HEAD' },
        { method: 'POST', url: '/v1/store/%6Frders', allow: 'GET, HEAD' },
        { method: 'GET', url: '/v1/store/orders/', allow: 'DELETE' },
      ] as const;
      for (const { method, url, allow } of cases) {
        const response = await app.inject({ method, url, headers: auth });
        assert.equal(response.statusCode, 405, `${method} ${url}`);
        assert.equal(response.headers.allow, allow, `${method} ${url}`);
        assert.equal(errorBody(response).code, 'method_not_allowed');
      }
    });

    test('when HEAD is sent to the list, then it answers like GET without a body', async (t) => {
      const { app, tenant } = await createTestApp(t, backend);
      const { auth } = await tenant();
      const response = await app.inject({ method: 'HEAD', url: '/v1/store/orders', headers: auth });
      assert.equal(response.statusCode, 200);
      assert.equal(response.body, '');
    });

    test('when any response is sent, then it carries X-Request-Id; a sane incoming id is kept, an unsafe one replaced', async (t) => {
      const { app, tenant } = await createTestApp(t, backend);
      const { auth } = await tenant();
      const generated = await app.inject({ method: 'GET', url: '/v1/store/orders', headers: auth });
      assert.match(String(generated.headers['x-request-id']), /^[0-9a-f-]{36}$/);
      const kept = await app.inject({ method: 'GET', url: '/nope', headers: { 'x-request-id': 'trace-42.a:b_c' } });
      assert.equal(kept.headers['x-request-id'], 'trace-42.a:b_c');
      for (const unsafe of ['has space', 'x'.repeat(129), '<script>', 'a"b']) {
        const replaced = await app.inject({ method: 'GET', url: '/v1/store/orders', headers: { 'x-request-id': unsafe } });
        assert.notEqual(replaced.headers['x-request-id'], unsafe);
        assert.match(String(replaced.headers['x-request-id']), /^[0-9a-f-]{36}$/);
      }
      const unauthorized = await app.inject({ method: 'DELETE', url: '/v1/store/orders/1' });
      assert.ok(unauthorized.headers['x-request-id']);
    });

    test('when the probes are called without a key, then /healthz and /readyz answer 200', async (t) => {
      const { app } = await createTestApp(t, backend);
      const health = await app.inject({ method: 'GET', url: '/healthz' });
      assert.equal(health.statusCode, 200);
      assert.deepEqual(health.json(), { status: 'ok' });
      const ready = await app.inject({ method: 'GET', url: '/readyz' });
      assert.equal(ready.statusCode, 200);
      assert.deepEqual(ready.json(), { status: 'ready' });
    });

    test('when the database is unavailable, then /readyz is 503 and an API call is a 5xx Error record without internals', async (t) => {
      const { app, storage, tenant } = await createTestApp(t, backend);
      const { auth } = await tenant();
      await storage.close();

      const ready = await app.inject({ method: 'GET', url: '/readyz' });
      assert.equal(ready.statusCode, 503);
      assert.equal(errorBody(ready).code, 'service_unavailable');

      const list = await app.inject({ method: 'GET', url: '/v1/store/orders', headers: auth });
      assert.ok(list.statusCode >= 500, `status ${list.statusCode}`);
      const error = errorBody(list);
      assert.doesNotMatch(error.message, /sqlite|database connection|postgres|stack|at /i);
      assert.ok(!list.body.includes('    at '), 'no stack trace');
    });

    test('when the error codes are listed, then each is snake_case and maps to an error status', () => {
      for (const code of ERROR_CODES) {
        assert.match(code, /^[a-z_]+$/);
        assert.ok(ERROR_STATUS[code] >= 400 && ERROR_STATUS[code] < 600);
      }
    });
  });
}

describe('requests Node rejects before routing', () => {
  test('when the request headers are too large or the request line is garbage, then an Error record, not a bare close', async (t) => {
    const backend = httpBackends()[0];
    assert.ok(backend);
    const { app } = await createTestApp(t, backend);
    await app.listen({ host: '127.0.0.1', port: 0 });
    const { port } = app.server.address() as AddressInfo;
    const send = (raw: string) =>
      new Promise<string>((resolve, reject) => {
        let text = '';
        const socket = connect(port, '127.0.0.1', () => socket.write(raw));
        socket.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
        socket.on('end', () => resolve(text));
        socket.on('error', reject);
      });
    const big = await send(`GET /v1/store/orders HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`);
    assert.match(big, /^HTTP\/1\.1 431 /);
    assert.ok(big.endsWith('{"code":"headers_too_large","message":"The request headers are too large.","status":431}'));
    const garbage = await send('NOT HTTP AT ALL\r\n\r\n');
    assert.match(garbage, /^HTTP\/1\.1 400 /);
    assert.match(garbage, /\r\nX-Request-Id: [0-9a-f-]{36}\r\n/i);
    assert.ok(garbage.endsWith('"status":400}'));
    const noHost = await send('GET /v1/store/orders HTTP/1.1\r\nConnection: close\r\n\r\n');
    assert.match(noHost, /^HTTP\/1\.1 400 /);
    assert.match(noHost, /\{"code":"malformed_request","message":"HTTP\/1\.1 requests must carry a Host header\.","status":400\}$/);
    const expect = await send('GET /healthz HTTP/1.1\r\nHost: x\r\nExpect: tea\r\nConnection: close\r\n\r\n');
    assert.match(expect, /^HTTP\/1\.1 417 /);
    assert.match(expect, /"code":"expectation_failed".*"status":417\}$/);
    const tunnel = await send('CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n');
    assert.match(tunnel, /^HTTP\/1\.1 400 /);
    assert.match(tunnel, /"code":"malformed_request".*"status":400\}$/);
  });
});

describe('a locked SQLite database', () => {
  test('when another process holds the write lock past the busy timeout, then cancel is a 503 Error record with Retry-After, and works once the lock is gone', async (t) => {
    // SQLite's own lock, whichever backend the other HTTP tests run on (TEST_HTTP_BACKEND).
    const { app, services, tenant, database } = await createTestApp(t, sqliteBackend);
    assert.equal(database.kind, 'sqlite');
    const { account, auth } = await tenant();
    const order = await services.orderOperations.createOrder({ accountId: account.id, petId: 1n, quantity: 1 });
    const other = new Database(database.path);
    t.after(() => other.close());
    other.exec('BEGIN IMMEDIATE');

    const busy = await app.inject({ method: 'DELETE', url: `/v1/store/orders/${order.id}`, headers: auth });
    assert.equal(busy.statusCode, 503);
    assert.equal(errorBody(busy).code, 'service_unavailable');
    assert.equal(busy.headers['retry-after'], '1');

    other.exec('ROLLBACK');
    const cancel = await app.inject({ method: 'DELETE', url: `/v1/store/orders/${order.id}`, headers: auth });
    assert.equal(cancel.statusCode, 204);
  });
});
