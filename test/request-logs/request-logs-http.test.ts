import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { generateApiKey } from '../../src/api-keys/api-key-format.js';
import { dropAuditTable } from '../audit/audit-storage.js';
import { buildTestStoreApp, createTestApp, errorBody, type TestApp } from '../support/app.js';
import { testConfig, testServices } from '../support/container.js';
import { capturingLogger } from '../support/logs.js';
import { listenLocal } from '../support/raw-http.js';
import { readSql } from '../support/raw-sql.js';
import { manualClock } from '../support/quickstart.js';
import { storageBackends } from '../support/storage.js';

interface RequestLogJson {
  id: number;
  at: string;
  method: string;
  path: string;
  status: number;
  errorCode?: string;
  durationMs: number;
  requestId: string;
  key?: { id: number; start?: string };
  clientAddress?: string;
  userAgent?: string;
  apiVersion?: string;
  response?: { code: string; message: string; status: number };
}
interface RequestLogsPageJson {
  data: RequestLogJson[];
  nextCursor: string | null;
}


/** Writes what the recorder holds (the server does so every REQUEST_LOG_FLUSH_MS) and reads the account's page through the API. */
async function logsOf(h: TestApp, auth: { authorization: string }, query = ''): Promise<RequestLogsPageJson> {
  await h.services.requestLogRecorder.flush();
  const response = await h.app.inject({ method: 'GET', url: `/v2/request-logs${query}`, headers: auth });
  assert.equal(response.statusCode, 200, response.body);
  return response.json<RequestLogsPageJson>();
}

for (const backend of storageBackends()) {
  describe(`request logs over HTTP (${backend.name})`, () => {
    test('when a key gets 2xx, 4xx and 5xx answers, then each is logged for its account with status, code, Error record and key, and no secret is stored', async (t) => {
      const h = await createTestApp(t, backend);
      const { account, key, auth } = await h.tenant();
      const [apiKey] = await h.services.apiKeys.listKeys(account.id);
      assert.ok(apiKey !== undefined);
      await h.services.orderOperations.createOrder({ accountId: account.id, id: 5n, quantity: 1 });

      const ok = await h.app.inject({ method: 'DELETE', url: '/v1/store/orders/5', headers: { ...auth, 'user-agent': 'checkout/2.1' }, remoteAddress: '203.0.113.7' });
      assert.equal(ok.statusCode, 204);
      const conflict = await h.app.inject({ method: 'DELETE', url: '/v2/store/orders/5', headers: auth });
      assert.equal(errorBody(conflict).code, 'order_already_cancelled');
      const secretQuery = await h.app.inject({ method: 'GET', url: `/v2/store/orders?status=pending&api_key=${key}&token=t0p&note=${encodeURIComponent(key)}`, headers: auth });
      assert.equal(secretQuery.statusCode, 400);
      const missing = await h.app.inject({ method: 'GET', url: '/v2/no-such-thing', headers: auth });
      assert.equal(missing.statusCode, 404);
      await dropAuditTable(h.database);
      const failed = await h.app.inject({ method: 'GET', url: '/v2/audit-events', headers: auth });
      assert.equal(errorBody(failed).status, 500);

      const { data } = await logsOf(h, auth, '?limit=10');
      // The listing's own request is logged too, after this page was read.
      assert.deepEqual(
        data.map((log) => [log.method, log.status, log.errorCode ?? null, log.apiVersion ?? null]),
        [
          ['GET', 500, 'internal_error', 'v2'],
          ['GET', 404, 'route_not_found', 'v2'],
          ['GET', 400, 'validation_failed', 'v2'],
          ['DELETE', 409, 'order_already_cancelled', 'v2'],
          ['DELETE', 204, null, 'v1'],
        ],
      );
      const [five, , refused, conflicted, cancelled] = data;
      assert.deepEqual(five?.response, JSON.parse(failed.body));
      assert.deepEqual(conflicted?.response, JSON.parse(conflict.body));
      assert.equal(conflicted?.requestId, conflict.headers['x-request-id']);
      assert.deepEqual(cancelled?.key, { id: apiKey.id, start: apiKey.start });
      assert.equal(cancelled?.clientAddress, '203.0.113.7');
      assert.equal(cancelled?.userAgent, 'checkout/2.1');
      assert.equal(cancelled?.path, '/v1/store/orders/5');
      assert.equal(cancelled?.response, undefined, 'no body is kept for a 2xx');
      assert.ok((cancelled?.durationMs ?? -1) >= 0);
      assert.equal(refused?.path, '/v2/store/orders?status=pending&api_key=[redacted]&token=[redacted]&note=[redacted-api-key]');

      await h.services.requestLogRecorder.flush();
      // SQLite packs the entries, a row per account and batch (migration 0033); PostgreSQL keeps a row per request.
      const rows = await readSql(h.database, h.database.kind === 'sqlite' ? 'SELECT * FROM request_log_batches' : 'SELECT * FROM request_logs');
      assert.equal(h.database.kind === 'sqlite' ? rows.reduce((sum, row) => sum + Number(row.live), 0) : rows.length, 6);
      const stored = JSON.stringify(rows, (_name, value: unknown) => (typeof value === 'bigint' ? String(value) : value));
      assert.ok(!stored.includes(key), 'the key never appears in any column');
      assert.ok(!stored.includes(key.slice(8)), 'nor its secret part');
      assert.ok(!stored.includes('t0p'), 'nor a secret-named query value');
      assert.ok(!/bearer/i.test(stored), 'nor the Authorization header');
    });

    test('when a key is expired, revoked or lacks the scope, then its requests are logged for its account; an unknown or malformed key logs nothing', async (t) => {
      const clock = manualClock(new Date());
      const h = await createTestApp(t, backend, { clock });
      const { account, auth } = await h.tenant();
      const narrow = await h.services.apiKeys.createKey({ accountId: account.id, scopes: ['orders:read'] });
      const expiring = await h.services.apiKeys.createKey({ accountId: account.id, expiresAt: new Date(clock.now().getTime() + 60_000).toISOString() });
      const revoked = await h.services.apiKeys.createKey({ accountId: account.id });
      await h.services.apiKeys.revokeKey(revoked.apiKey.id);
      clock.advance(120_000);
      const bearer = (secret: string) => ({ authorization: `Bearer ${secret}` });

      // The clock moves between requests, so that each arrives at its own instant (newest first is by time).
      assert.equal((await h.app.inject({ method: 'GET', url: '/v2/audit-events', headers: bearer(narrow.secret) })).statusCode, 403);
      clock.advance(1000);
      assert.equal(errorBody(await h.app.inject({ method: 'GET', url: '/v1/store/orders', headers: bearer(expiring.secret) })).code, 'expired_api_key');
      clock.advance(1000);
      assert.equal(errorBody(await h.app.inject({ method: 'GET', url: '/v1/store/orders', headers: bearer(revoked.secret) })).code, 'invalid_api_key');
      clock.advance(1000);
      assert.equal((await h.app.inject({ method: 'GET', url: '/v1/store/orders', headers: bearer(generateApiKey('production').key) })).statusCode, 401);
      assert.equal((await h.app.inject({ method: 'GET', url: '/v1/store/orders', headers: bearer('so_prod_nonsense') })).statusCode, 401);
      assert.equal((await h.app.inject({ method: 'GET', url: '/healthz' })).statusCode, 200);

      const { data } = await logsOf(h, auth);
      assert.deepEqual(
        data.map((log) => [log.key?.id, log.status, log.errorCode]),
        [
          [revoked.apiKey.id, 401, 'invalid_api_key'],
          [expiring.apiKey.id, 401, 'expired_api_key'],
          [narrow.apiKey.id, 403, 'insufficient_scope'],
        ],
      );
    });

    test('when REQUEST_LOGS is off, then no request is captured, on either path, and the listing is empty', async (t) => {
      const { storage } = await backend.freshDatabase(t);
      const config = testConfig({ REQUEST_LOGS: 'off' });
      const services = testServices(storage, { config });
      const app = await buildTestStoreApp({ logger: capturingLogger().logger, services, storage, config });
      t.after(() => app.close());
      const account = await services.accounts.createAccount({ name: 'Quiet Pets' });
      const { secret } = await services.apiKeys.createKey({ accountId: account.id });
      const auth = { authorization: `Bearer ${secret}` };
      const port = await listenLocal(app);
      for (let i = 0; i < 2; i++) assert.equal((await fetch(`http://127.0.0.1:${port}/v1/store/orders`, { headers: auth })).status, 200);
      assert.equal((await app.inject({ method: 'DELETE', url: '/v1/store/orders/1', headers: auth })).statusCode, 404);
      await services.requestLogRecorder.flush();
      const page = await app.inject({ method: 'GET', url: '/v2/request-logs', headers: auth });
      assert.deepEqual(page.json(), { data: [], nextCursor: null });
    });

    // At info the lane captures once its answer is out, with its log line; at warn (no log line) at once.
    for (const logLevel of ['info', 'warn'] as const) {
      test(`when the v1 listing is answered by the fast lane with logs at ${logLevel}, then it is logged as the route logs it`, async (t) => {
        const h = await createTestApp(t, backend, { logLevel });
        const { auth } = await h.tenant();
        const port = await listenLocal(h.app);
        const url = `http://127.0.0.1:${port}/v1/store/orders`;
        const first = await fetch(url, { headers: { ...auth, 'user-agent': 'lane-test' } });
        assert.equal(first.status, 200);
        await first.arrayBuffer();
        // The first answer put the listing in memory: the second is the lane's.
        const second = await fetch(url, { headers: { ...auth, 'user-agent': 'lane-test' } });
        assert.equal(second.status, 200);
        await second.arrayBuffer();
        const notModified = await fetch(url, { headers: { ...auth, 'if-none-match': String(second.headers.get('etag')) } });
        assert.equal(notModified.status, 304);

        const { data } = await logsOf(h, auth);
        assert.deepEqual(
          data.map((log) => [log.method, log.path, log.status, log.apiVersion, log.requestId]),
          [
            ['GET', '/v1/store/orders', 304, 'v1', notModified.headers.get('x-request-id')],
            ['GET', '/v1/store/orders', 200, 'v1', second.headers.get('x-request-id')],
            ['GET', '/v1/store/orders', 200, 'v1', first.headers.get('x-request-id')],
          ],
        );
        const [, lane, route] = data;
        assert.deepEqual({ ...lane, id: 0, at: '', durationMs: 0, requestId: '' }, { ...route, id: 0, at: '', durationMs: 0, requestId: '' });
        assert.equal(lane?.clientAddress, '127.0.0.1');
        assert.equal(lane?.userAgent, 'lane-test');
        // The lane fills one capture object for each request: the 304, sent with fetch's own user agent, keeps none of the one before.
        assert.notEqual(data[0]?.userAgent, 'lane-test');
        assert.equal(h.logs.some((line) => line.includes('"msg":"request completed"')), logLevel === 'info', 'a log line per request at info only');
      });
    }
  });
}
