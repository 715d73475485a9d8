import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { openStorage } from '../../../src/storage/open-storage.js';
import { buildTestStoreApp, createTestApp } from '../../support/app.js';
import { capturingLogger } from '../../support/logs.js';
import { httpBackends, storageBackends } from '../../support/storage.js';
import { testServices } from '../../support/container.js';

/** A v2 page's orders as `id:status`, in order. */
const listed = (body: string) => (JSON.parse(body) as { data: { id: number; status: string }[] }).data.map((o) => `${o.id}:${o.status}`);

/** NDJSON lines as the import reads them, in one group. */
async function* linesOf(...lines: string[]): AsyncGenerator<string[]> {
  yield lines;
}

for (const backend of storageBackends()) {
  describe(`v2 page cache (${backend.name})`, () => {
    test('when an unchanged page is asked for again, then the same bytes and Link come back; after a write by another connection, the new state', async (t) => {
      const { app, services, database, tenant } = await createTestApp(t, backend);
      const { account, auth } = await tenant();
      for (let i = 1; i <= 5; i++) await services.orderOperations.createOrder({ accountId: account.id, id: BigInt(i), petId: 9007199254740993n, quantity: i });
      const url = '/v2/store/orders?limit=2&petId=9007199254740993';
      const get = () => app.inject({ method: 'GET', url, headers: auth });

      const first = await get();
      const again = await get();
      assert.equal(first.statusCode, 200);
      assert.equal(again.body, first.body);
      assert.equal(again.headers.link, first.headers.link);
      assert.equal(again.headers['content-type'], 'application/json; charset=utf-8');
      assert.match(String(first.headers.link), /^<\/v2\/store\/orders\?petId=9007199254740993&limit=2&cursor=[^>]+>; rel="next"$/);
      assert.deepEqual(
        (JSON.parse(first.body) as { data: { id: number; status: string }[] }).data.map((o) => [o.id, o.status]),
        [[1, 'pending'], [2, 'pending']],
      );

      const other = openStorage(database);
      t.after(() => other.close());
      await testServices(other).orders.cancelOrder(account.id, 2n);

      const after = await get();
      assert.notEqual(after.headers.etag, first.headers.etag);
      assert.deepEqual(
        (JSON.parse(after.body) as { data: { id: number; status: string }[] }).data.map((o) => [o.id, o.status]),
        [[1, 'pending'], [2, 'cancelled']],
      );
    });

    test('when the same page is asked for with another spelling of the query, then each answer has its own Link', async (t) => {
      const { app, services, tenant } = await createTestApp(t, backend);
      const { account, auth } = await tenant();
      for (let i = 1; i <= 3; i++) await services.orderOperations.createOrder({ accountId: account.id, id: BigInt(i), petId: 1n, quantity: 1 });
      const explicit = await app.inject({ method: 'GET', url: '/v2/store/orders?limit=1&status=pending&status=shipped', headers: auth });
      const reordered = await app.inject({ method: 'GET', url: '/v2/store/orders?status=shipped&status=pending&limit=1', headers: auth });
      assert.equal(explicit.statusCode, 200);
      assert.equal(reordered.statusCode, 200);
      assert.equal(reordered.body, explicit.body);
      assert.match(String(explicit.headers.link), /status=pending&status=shipped/);
      assert.match(String(reordered.headers.link), /status=shipped&status=pending/);
    });
  });
}

for (const backend of storageBackends()) {
  describe(`v2 page cache across processes (${backend.name})`, () => {
    test('when another process creates, imports or cancels an order, then the next page shows it under a new ETag, never a 304', async (t) => {
      const { app, services, database, tenant } = await createTestApp(t, backend);
      const { account, auth } = await tenant();
      await services.orderOperations.createOrder({ accountId: account.id, id: 1n, petId: 1n, quantity: 1 });
      const other = openStorage(database);
      t.after(() => other.close());
      const theirs = testServices(other);
      const get = (ifNoneMatch?: string) =>
        app.inject({ method: 'GET', url: '/v2/store/orders?limit=100', headers: { ...auth, ...(ifNoneMatch === undefined ? {} : { 'if-none-match': ifNoneMatch }) } });
      let page = await get();
      // Kept, and answered from what was kept: the ETag holds while nothing changed.
      assert.equal((await get(String(page.headers.etag))).statusCode, 304);

      const writes: [string, () => Promise<unknown>, string[]][] = [
        ['create', () => theirs.orderOperations.createOrder({ accountId: account.id, id: 2n, petId: 2n, quantity: 1 }), ['1:pending', '2:pending']],
        ['import', () => theirs.orderOperations.importOrders(account.id, linesOf('{"id":3,"petId":3,"quantity":1}')), ['1:pending', '2:pending', '3:pending']],
        ['cancel', () => theirs.ordersV2.cancelOrder(account.id, 1n), ['1:cancelled', '2:pending', '3:pending']],
      ];
      for (const [write, run, expected] of writes) {
        const held = String(page.headers.etag);
        await run();
        const next = await get(held);
        assert.equal(next.statusCode, 200, write);
        assert.notEqual(next.headers.etag, held, write);
        assert.deepEqual(listed(next.body), expected, write);
        page = next;
      }
    });

    test("when two servers share a database, then a page has one ETag and one body in both, and each answers the other one's ETag with 304", async (t) => {
      const { app, services, database, tenant } = await createTestApp(t, backend);
      const { account, auth } = await tenant();
      for (let i = 1; i <= 3; i++) await services.orderOperations.createOrder({ accountId: account.id, id: BigInt(i), petId: 1n, quantity: 1 });
      const otherStorage = openStorage(database);
      t.after(() => otherStorage.close());
      const otherApp = await buildTestStoreApp({ logger: capturingLogger().logger, services: testServices(otherStorage), storage: otherStorage });
      t.after(() => otherApp.close());
      for (const url of ['/v2/store/orders?limit=2', '/v2/store/orders?status=pending&petId=1']) {
        // Twice on the first server: its second answer comes from what it kept.
        await app.inject({ method: 'GET', url, headers: auth });
        const here = await app.inject({ method: 'GET', url, headers: auth });
        const there = await otherApp.inject({ method: 'GET', url, headers: auth });
        assert.equal(there.headers.etag, here.headers.etag, url);
        assert.equal(there.body, here.body, url);
        assert.equal(there.headers.link, here.headers.link, url);
        assert.equal((await otherApp.inject({ method: 'GET', url, headers: { ...auth, 'if-none-match': String(here.headers.etag) } })).statusCode, 304, url);
        assert.equal((await app.inject({ method: 'GET', url, headers: { ...auth, 'if-none-match': String(there.headers.etag) } })).statusCode, 304, url);
      }
    });
  });
}

for (const backend of httpBackends()) {
  describe(`v2 page cache entries (${backend.name})`, () => {
    test('when this process places, imports or cancels an order, then the next page shows it under a new ETag', async (t) => {
      const { app, services, tenant } = await createTestApp(t, backend);
      const { account, auth } = await tenant();
      const get = () => app.inject({ method: 'GET', url: '/v2/store/orders', headers: auth });
      const etags = [String((await get()).headers.etag)];
      const placed = await app.inject({ method: 'POST', url: '/v2/store/orders', headers: { ...auth, 'content-type': 'application/json' }, payload: '{"petId":1,"quantity":1}' });
      assert.equal(placed.statusCode, 201);
      assert.deepEqual(listed((await get()).body), ['1:pending']);
      etags.push(String((await get()).headers.etag));
      await services.orderOperations.importOrders(account.id, linesOf('{"petId":2,"quantity":1}'));
      assert.deepEqual(listed((await get()).body), ['1:pending', '2:pending']);
      etags.push(String((await get()).headers.etag));
      assert.equal((await app.inject({ method: 'DELETE', url: '/v2/store/orders/1', headers: auth })).statusCode, 204);
      assert.deepEqual(listed((await get()).body), ['1:cancelled', '2:pending']);
      etags.push(String((await get()).headers.etag));
      assert.equal(new Set(etags).size, 4);
    });

    test("when another account asks for the same page, then it gets its own orders and ETag, and this account's ETag is no 304 for it", async (t) => {
      const { app, services, tenant } = await createTestApp(t, backend);
      const mine = await tenant();
      const theirs = await tenant();
      await services.orderOperations.createOrder({ accountId: mine.account.id, id: 1n, petId: 1n, quantity: 1 });
      await services.orderOperations.createOrder({ accountId: theirs.account.id, id: 2n, petId: 1n, quantity: 1 });
      const url = '/v2/store/orders?limit=100';
      await app.inject({ method: 'GET', url, headers: mine.auth });
      const kept = await app.inject({ method: 'GET', url, headers: mine.auth });
      const other = await app.inject({ method: 'GET', url, headers: { ...theirs.auth, 'if-none-match': String(kept.headers.etag) } });
      assert.equal(other.statusCode, 200);
      assert.notEqual(other.headers.etag, kept.headers.etag);
      assert.deepEqual(listed(kept.body), ['1:pending']);
      assert.deepEqual(listed(other.body), ['2:pending']);
    });

    test('when pages differ by filter, limit or cursor, then each is kept and answered as its own', async (t) => {
      const { storage } = await backend.freshDatabase(t);
      const services = testServices(storage);
      const lookups = { hit: 0, miss: 0 };
      const app = await buildTestStoreApp({ logger: capturingLogger().logger, services, storage, listingMetrics: { lookup: (hit) => void lookups[hit ? 'hit' : 'miss']++ } });
      t.after(() => app.close());
      const account = await services.accounts.createAccount({ name: 'Pages' });
      const { secret } = await services.apiKeys.createKey({ accountId: account.id });
      const auth = { authorization: `Bearer ${secret}` };
      for (let i = 1; i <= 4; i++) await services.orderOperations.createOrder({ accountId: account.id, id: BigInt(i), petId: BigInt(1 + (i % 2)), quantity: 1 });
      await services.ordersV2.cancelOrder(account.id, 3n);
      const cursor = (await app.inject({ method: 'GET', url: '/v2/store/orders?limit=2', headers: auth }).then((r) => r.json())) as { nextCursor: string };
      const pages: [string, string[]][] = [
        ['/v2/store/orders?limit=100', ['1:pending', '2:pending', '3:cancelled', '4:pending']],
        ['/v2/store/orders?limit=2', ['1:pending', '2:pending']],
        ['/v2/store/orders?petId=2', ['1:pending', '3:cancelled']],
        ['/v2/store/orders?status=cancelled', ['3:cancelled']],
        ['/v2/store/orders?status=pending&limit=1', ['1:pending']],
        [`/v2/store/orders?limit=2&cursor=${cursor.nextCursor}`, ['3:cancelled', '4:pending']],
      ];
      for (const round of ['built', 'kept']) {
        const before = { ...lookups };
        for (const [url, expected] of round === 'built' ? pages : [...pages].reverse()) {
          assert.deepEqual(listed((await app.inject({ method: 'GET', url, headers: auth })).body), expected, `${round}: ${url}`);
        }
        // The first round builds what the cursor's page did not, the second finds every page kept.
        if (round === 'kept') assert.deepEqual({ hit: lookups.hit - before.hit, miss: lookups.miss - before.miss }, { hit: pages.length, miss: 0 });
      }
    });
  });
}
