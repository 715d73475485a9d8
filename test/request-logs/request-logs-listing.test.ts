import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createEventsPruner } from '../../src/events/events-pruner.js';
import { createTestApp, errorBody, type TestApp } from '../support/app.js';
import { manualClock } from '../support/quickstart.js';
import { storageBackends } from '../support/storage.js';

interface RequestLogsPageJson {
  data: { method: string; path: string; status: number; requestId: string; key?: { id: number } }[];
  nextCursor: string | null;
}

const DAY_MS = 86_400_000;


/** Lists through the API after writing what the recorder holds; the listing requests themselves are logged too. */
async function list(h: TestApp, auth: { authorization: string }, query: string): Promise<RequestLogsPageJson> {
  await h.services.requestLogRecorder.flush();
  const response = await h.app.inject({ method: 'GET', url: `/v2/request-logs${query}`, headers: auth });
  assert.equal(response.statusCode, 200, response.body);
  return response.json<RequestLogsPageJson>();
}

for (const backend of storageBackends()) {
  describe(`GET /v2/request-logs (${backend.name})`, () => {
    test('when filters and cursors are used, then pages hold the matching requests newest first, and a cursor is bound to its account and filters', async (t) => {
      const h = await createTestApp(t, backend);
      const a = await h.tenant('A');
      const b = await h.tenant('B');
      const [keyA] = await h.services.apiKeys.listKeys(a.account.id);
      assert.ok(keyA !== undefined);
      const second = await h.services.apiKeys.createKey({ accountId: a.account.id });
      await h.services.orderOperations.createOrder({ accountId: a.account.id, id: 1n, quantity: 1 });
      const sent: string[] = [];
      const send = async (method: 'GET' | 'DELETE', url: string, auth: { authorization: string }) => {
        const response = await h.app.inject({ method, url, headers: auth });
        sent.push(String(response.headers['x-request-id']));
        return response.statusCode;
      };
      assert.equal(await send('DELETE', '/v1/store/orders/1', a.auth), 204);
      assert.equal(await send('DELETE', '/v2/store/orders/1', a.auth), 409);
      assert.equal(await send('DELETE', '/v1/store/orders/2', { authorization: `Bearer ${second.secret}` }), 404);
      assert.equal(await send('GET', '/v2/store/orders?limit=5', a.auth), 200);
      assert.equal(await send('GET', '/v1/store/orders', b.auth), 200);

      const only = async (query: string) => (await list(h, a.auth, query)).data.map((log) => `${log.method} ${log.path} ${log.status}`);
      assert.deepEqual(await only('?status=4xx'), ['DELETE /v1/store/orders/2 404', 'DELETE /v2/store/orders/1 409']);
      assert.deepEqual(await only('?status=409'), ['DELETE /v2/store/orders/1 409']);
      assert.deepEqual(await only('?method=delete&status=2xx'), ['DELETE /v1/store/orders/1 204']);
      assert.deepEqual(await only('?path=/v2/store'), ['GET /v2/store/orders?limit=5 200', 'DELETE /v2/store/orders/1 409']);
      assert.deepEqual(await only(`?requestId=${sent[1]}`), ['DELETE /v2/store/orders/1 409']);
      assert.deepEqual(await only(`?keyId=${second.apiKey.id}`), ['DELETE /v1/store/orders/2 404']);
      assert.deepEqual(await only(`?until=${new Date(Date.now() - DAY_MS).toISOString()}`), []);
      assert.deepEqual(await only('?path=/v1/store/orders/&since=2020-01-01T00:00:00Z'), ['DELETE /v1/store/orders/2 404', 'DELETE /v1/store/orders/1 204']);
      // B's request is B's alone.
      assert.ok((await list(h, b.auth, '?path=/v1/store/orders/')).data.length === 0);

      // Walking one by one sees each of A's DELETEs once, newest first.
      const walked: string[] = [];
      let cursor: string | null = null;
      do {
        const page: RequestLogsPageJson = await list(h, a.auth, `?method=DELETE&limit=1${cursor === null ? '' : `&cursor=${cursor}`}`);
        walked.push(...page.data.map((log) => log.requestId));
        cursor = page.nextCursor;
      } while (cursor !== null);
      assert.deepEqual(walked, [sent[2], sent[1], sent[0]]);

      const first = await list(h, a.auth, '?method=DELETE&limit=1');
      assert.ok(first.nextCursor !== null);
      const otherFilters = await h.app.inject({ method: 'GET', url: `/v2/request-logs?method=GET&limit=1&cursor=${first.nextCursor}`, headers: a.auth });
      assert.equal(errorBody(otherFilters).code, 'invalid_cursor');
      const otherAccount = await h.app.inject({ method: 'GET', url: `/v2/request-logs?method=DELETE&limit=1&cursor=${first.nextCursor}`, headers: b.auth });
      assert.equal(errorBody(otherAccount).code, 'invalid_cursor');
    });

    test('when a filter is malformed or unknown, then the answer is a 400 naming the parameter', async (t) => {
      const h = await createTestApp(t, backend);
      const { auth } = await h.tenant();
      for (const [query, named] of [
        ['?status=4x', 'status'],
        ['?status=600', 'status'],
        ['?method=BREW', 'method'],
        ['?path=v1', 'path'],
        ['?keyId=0', 'keyId'],
        ['?since=yesterday', 'since'],
        ['?since=2026-11-27T10:00:00Z&until=2026-11-26T10:00:00Z', 'until'],
        ['?limit=501', 'limit'],
        ['?verbose=1', 'verbose'],
      ] as const) {
        const response = await h.app.inject({ method: 'GET', url: `/v2/request-logs${query}`, headers: auth });
        const body = errorBody(response);
        assert.equal(body.code, 'validation_failed', query);
        assert.match(body.message, new RegExp(`^Query parameter ${named} `), query);
      }
    });

    test('when a key lacks logs:read, then the listing is refused; a key created without scopes holds it', async (t) => {
      const h = await createTestApp(t, backend);
      const { account, auth } = await h.tenant();
      const narrow = await h.services.apiKeys.createKey({ accountId: account.id, scopes: ['orders:read'] });
      const refused = await h.app.inject({ method: 'GET', url: '/v2/request-logs', headers: { authorization: `Bearer ${narrow.secret}` } });
      assert.equal(errorBody(refused).code, 'insufficient_scope');
      assert.match(String(refused.headers['www-authenticate']), /scope="logs:read"/);
      assert.equal((await h.app.inject({ method: 'GET', url: '/v2/request-logs', headers: auth })).statusCode, 200);
    });

    test('when logs pass the retention, then the background pruning deletes them and keeps the younger ones', async (t) => {
      const clock = manualClock(new Date());
      const h = await createTestApp(t, backend, { clock });
      const { auth } = await h.tenant();
      assert.equal((await h.app.inject({ method: 'GET', url: '/v1/store/orders', headers: auth })).statusCode, 200);
      await h.services.requestLogRecorder.flush();
      const pruner = createEventsPruner({ eventsService: h.services.requestLogs, intervalMs: 60_000, onError: (error) => assert.fail(String(error)) });
      assert.equal(await pruner.pruneOnce(), 0, 'nothing is older than 14 days yet');

      clock.advance(13 * DAY_MS);
      assert.equal((await h.app.inject({ method: 'GET', url: '/v2/store/orders', headers: auth })).statusCode, 200);
      await h.services.requestLogRecorder.flush();
      assert.equal(await pruner.pruneOnce(), 0, 'at 13 days, nothing goes');
      clock.advance(2 * DAY_MS);
      assert.equal(await pruner.pruneOnce(), 1, 'at 15 days, the first request goes');
      assert.deepEqual(
        (await list(h, auth, '')).data.map((log) => log.path),
        ['/v2/store/orders'],
      );
    });
  });
}
