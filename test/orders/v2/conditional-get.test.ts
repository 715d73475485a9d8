import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { describe, test, type TestContext } from 'node:test';
import { ifNoneMatchMatches } from '../../../src/api/http/conditional-get.js';
import { createLogger } from '../../../src/http/logging.js';
import type { OrdersRepository } from '../../../src/orders/orders-repository.js';
import type { Storage } from '../../../src/storage/storage.js';
import { buildTestStoreApp, createTestApp, errorBody } from '../../support/app.js';
import { httpBackends, type TestBackend } from '../../support/storage.js';
import { testServices } from '../../support/container.js';

const LISTINGS = ['/v1/store/orders', '/v2/store/orders', '/v2/store/orders?status=pending&limit=2'];

/** The real app over a real database, counting the listing queries the orders repository runs. */
async function countingApp(t: TestContext, backend: TestBackend) {
  const { storage } = await backend.freshDatabase(t);
  const calls = { listActivePage: 0, listPage: 0 };
  const orders: OrdersRepository = {
    ...storage.orders,
    listActivePage: (accountId, afterId, limit) => {
      calls.listActivePage++;
      return storage.orders.listActivePage(accountId, afterId, limit);
    },
    listPage: (query) => {
      calls.listPage++;
      return storage.orders.listPage(query);
    },
  };
  const counted: Storage = { ...storage, orders };
  const services = testServices(counted);
  const sink = new Writable({ write: (_chunk, _encoding, done) => done() });
  const app = await buildTestStoreApp({ logger: createLogger('silent', sink), services, storage: counted });
  t.after(() => app.close());
  const account = await services.accounts.createAccount({ name: 'Counted' });
  const { secret } = await services.apiKeys.createKey({ accountId: account.id });
  return { app, services, account, auth: { authorization: `Bearer ${secret}` }, calls };
}

for (const backend of httpBackends()) {
  describe(`conditional GET on the listings (${backend.name})`, () => {
    test('when a listing is fetched, then it carries a strong ETag, private no-cache and Vary: Authorization', async (t) => {
      const { app, tenant } = await createTestApp(t, backend);
      const { auth } = await tenant();
      for (const url of LISTINGS) {
        const response = await app.inject({ method: 'GET', url, headers: auth });
        assert.equal(response.statusCode, 200);
        assert.match(String(response.headers.etag), /^"[A-Za-z0-9_-]{27}"$/, url);
        assert.equal(response.headers['cache-control'], 'private, no-cache');
        assert.equal(response.headers.vary, 'Authorization');
      }
    });

    test('when If-None-Match holds the current ETag, then 304 with no body and no Content-Type', async (t) => {
      const { app, services, tenant } = await createTestApp(t, backend);
      const { account, auth } = await tenant();
      await services.orderOperations.createOrder({ accountId: account.id, petId: 1n, quantity: 1 });
      for (const url of LISTINGS) {
        const etag = String((await app.inject({ method: 'GET', url, headers: auth })).headers.etag);
        for (const ifNoneMatch of [etag, `W/${etag}`, `"other", ${etag}`, '*']) {
          const response = await app.inject({ method: 'GET', url, headers: { ...auth, 'if-none-match': ifNoneMatch } });
          assert.equal(response.statusCode, 304, `${url} with ${ifNoneMatch}`);
          assert.equal(response.body, '');
          assert.equal(response.headers['content-type'], undefined);
          assert.equal(response.headers['content-length'], undefined);
          assert.equal(response.headers.etag, etag);
        }
        const stale = await app.inject({ method: 'GET', url, headers: { ...auth, 'if-none-match': '"not-it"' } });
        assert.equal(stale.statusCode, 200);
      }
    });

    test('when any order of the account is created, cancelled or shipped, then every listing ETag changes', async (t) => {
      const { app, services, tenant } = await createTestApp(t, backend);
      const { account, auth } = await tenant();
      const etags = async () => Promise.all(LISTINGS.map(async (url) => String((await app.inject({ method: 'GET', url, headers: auth })).headers.etag)));
      const seen = new Set<string>();
      const record = async () => {
        for (const etag of await etags()) {
          assert.ok(!seen.has(etag), 'an ETag came back after a change');
          seen.add(etag);
        }
      };
      await record();
      const a = await services.orderOperations.createOrder({ accountId: account.id, petId: 1n, quantity: 1 });
      await record();
      const b = await services.orderOperations.createOrder({ accountId: account.id, petId: 2n, quantity: 1 });
      await record();
      await services.orders.cancelOrder(account.id, a.id);
      await record();
      await services.orderOperations.shipOrder(b.id);
      await record();
      // Unchanged data: the same ETags again.
      const again = await etags();
      assert.deepEqual(again, await etags());
    });

    test("when another account's orders change, then this account's ETags stay; two accounts never share one", async (t) => {
      const { app, services, tenant } = await createTestApp(t, backend);
      const mine = await tenant();
      const theirs = await tenant();
      const etag = async (auth: Record<string, string>, url: string) => String((await app.inject({ method: 'GET', url, headers: auth })).headers.etag);
      for (const url of LISTINGS) {
        const before = await etag(mine.auth, url);
        assert.notEqual(before, await etag(theirs.auth, url), 'empty listings of two accounts');
        await services.orderOperations.createOrder({ accountId: theirs.account.id, petId: 1n, quantity: 1 });
        assert.equal(await etag(mine.auth, url), before);
      }
    });

    test('when v2 pages differ by filter, limit or cursor, then their ETags differ', async (t) => {
      const { app, services, tenant } = await createTestApp(t, backend);
      const { account, auth } = await tenant();
      for (let i = 0; i < 3; i++) await services.orderOperations.createOrder({ accountId: account.id, petId: 1n, quantity: 1 });
      const first = await app.inject({ method: 'GET', url: '/v2/store/orders?limit=1', headers: auth });
      const cursor = (first.json() as { nextCursor: string }).nextCursor;
      const urls = ['/v2/store/orders', '/v2/store/orders?limit=1', '/v2/store/orders?limit=2', '/v2/store/orders?petId=1', `/v2/store/orders?limit=1&cursor=${cursor}`];
      const etags = await Promise.all(urls.map(async (url) => String((await app.inject({ method: 'GET', url, headers: auth })).headers.etag)));
      assert.equal(new Set(etags).size, urls.length);
      // Equivalent spellings of one filter set are one representation.
      const a = await app.inject({ method: 'GET', url: '/v2/store/orders?status=shipped&status=pending', headers: auth });
      const b = await app.inject({ method: 'GET', url: '/v2/store/orders?status=pending&status=shipped', headers: auth });
      assert.equal(a.headers.etag, b.headers.etag);
      assert.equal(a.body, b.body);
    });

    test('when the request is unauthenticated or invalid, then 401 or 400 even with a matching If-None-Match', async (t) => {
      const { app, tenant } = await createTestApp(t, backend);
      const { auth } = await tenant();
      const etag = String((await app.inject({ method: 'GET', url: '/v2/store/orders', headers: auth })).headers.etag);
      const anonymous = await app.inject({ method: 'GET', url: '/v2/store/orders', headers: { 'if-none-match': etag } });
      assert.equal(anonymous.statusCode, 401);
      const invalid = await app.inject({ method: 'GET', url: '/v2/store/orders?limit=0', headers: { ...auth, 'if-none-match': '*' } });
      assert.equal(invalid.statusCode, 400);
      assert.equal(errorBody(invalid).code, 'validation_failed');
    });

    test('when a 304 is answered, then no order is read: the ETag comes from the change counter alone', async (t) => {
      const { app, services, account, auth, calls } = await countingApp(t, backend);
      for (let i = 0; i < 5; i++) await services.orderOperations.createOrder({ accountId: account.id, petId: 1n, quantity: 1 });
      for (const url of ['/v1/store/orders', '/v2/store/orders?limit=2']) {
        const etag = String((await app.inject({ method: 'GET', url, headers: auth })).headers.etag);
        const before = { ...calls };
        for (let i = 0; i < 3; i++) {
          assert.equal((await app.inject({ method: 'GET', url, headers: { ...auth, 'if-none-match': etag } })).statusCode, 304);
        }
        assert.deepEqual(calls, before, url);
      }
      assert.equal(calls.listActivePage, 1);
      assert.equal(calls.listPage, 1);
    });
  });
}

describe('If-None-Match matching', () => {
  test('when tags are listed, weak or strong, then weak comparison decides (RFC 9110 13.1.2)', () => {
    const etag = '"abc"';
    assert.equal(ifNoneMatchMatches(undefined, etag), false);
    assert.equal(ifNoneMatchMatches('"abc"', etag), true);
    assert.equal(ifNoneMatchMatches('W/"abc"', etag), true);
    assert.equal(ifNoneMatchMatches(' "x" ,W/"abc" ', etag), true);
    assert.equal(ifNoneMatchMatches('*', etag), true);
    assert.equal(ifNoneMatchMatches('abc', etag), false);
    assert.equal(ifNoneMatchMatches('"abcd"', etag), false);
    assert.equal(ifNoneMatchMatches('"ab"', etag), false);
    assert.equal(ifNoneMatchMatches('', etag), false);
  });
});
