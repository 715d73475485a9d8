import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { describe, test, type TestContext } from 'node:test';
import { createLogger } from '../../../src/http/logging.js';
import type { ListingOptions } from '../../../src/orders/listing/listing-responses.js';
import type { Order, OrdersRepository } from '../../../src/orders/orders-repository.js';
import { stringifyJson } from '../../../src/shared/json.js';
import { openStorage } from '../../../src/storage/open-storage.js';
import { buildTestStoreApp } from '../../support/app.js';
import { httpBackends, type TestBackend } from '../../support/storage.js';
import { testServices } from '../../support/container.js';

/** The v1 listing as the plain serialisation writes it: the five fields, in schema order. */
function plainListing(orders: Order[]): string {
  return stringifyJson(
    orders
      .filter((o) => o.status !== 'cancelled')
      .map((o) => ({ id: o.id, petId: o.petId, quantity: o.quantity, shipDate: o.shipDate, complete: o.complete })),
  );
}

async function setup(t: TestContext, backend: TestBackend, listing?: ListingOptions) {
  const { config, storage } = await backend.freshDatabase(t);
  // The real repository, with its page reads counted.
  const pageReads = { count: 0 };
  const ordersRepository: OrdersRepository = {
    ...storage.orders,
    listActivePage: (accountId, afterId, limit) => {
      pageReads.count++;
      return storage.orders.listActivePage(accountId, afterId, limit);
    },
  };
  const services = testServices({ ...storage, orders: ordersRepository });
  const silent = new Writable({ write: (_chunk, _encoding, done) => done() });
  const app = await buildTestStoreApp({ logger: createLogger('silent', silent), services, storage, ...(listing === undefined ? {} : { listing }) });
  t.after(() => app.close());
  const account = await services.accounts.createAccount({ name: 'Listing' });
  const { secret } = await services.apiKeys.createKey({ accountId: account.id });
  const list = async () => {
    const response = await app.inject({ method: 'GET', url: '/v1/store/orders', headers: { authorization: `Bearer ${secret}` } });
    assert.equal(response.statusCode, 200);
    assert.equal(response.headers['content-type'], 'application/json; charset=utf-8');
    return response.body;
  };
  return { config, storage, services, account, secret, app, list, pageReads };
}

for (const backend of httpBackends()) {
  describe(`v1 listing: cache and streaming (${backend.name})`, () => {
    test('when the listing is larger than one page, then the streamed body is byte-identical to the plain serialisation, int64 digits included', async (t) => {
      const { services, account, list, storage } = await setup(t, backend, { wholeLimit: 5, streamPage: 3 });
      const ids = [-9223372036854775808n, -1n, 0n, 7n, 9007199254740993n, 9007199254740994n, 9223372036854775806n, 9223372036854775807n];
      for (const [i, id] of ids.entries()) {
        await services.orderOperations.createOrder({
          accountId: account.id,
          id,
          petId: i % 2 === 0 ? 9223372036854775807n - BigInt(i) : BigInt(i),
          quantity: i + 1,
          shipDate: i % 3 === 0 ? undefined : '2026-12-01T10:00:00+02:00',
          complete: i % 2 === 1,
        });
      }
      for (let i = 0; i < 20; i++) await services.orderOperations.createOrder({ accountId: account.id, id: 100n + BigInt(i), petId: 1n, quantity: 1 });
      await services.orders.cancelOrder(account.id, 9007199254740994n);
      await services.orders.cancelOrder(account.id, 105n);

      const body = await list();

      assert.equal(body, plainListing(await storage.orders.listAll(account.id)));
      assert.ok(body.includes('"id":9007199254740993,'), 'exact int64 digits');
      assert.ok(!body.includes('"id":9007199254740994,'), 'cancelled orders are not listed');
    });

    test('when the listing fits in one page, then it is the plain serialisation, and so is a repeat served from the cache', async (t) => {
      const { services, account, list, storage } = await setup(t, backend);
      for (let i = 0; i < 5; i++) {
        await services.orderOperations.createOrder({ accountId: account.id, petId: 9007199254740993n + BigInt(i), quantity: 2, shipDate: '2026-12-01T10:00:00Z' });
      }
      const expected = plainListing(await storage.orders.listAll(account.id));
      assert.equal(await list(), expected);
      assert.equal(await list(), expected);
    });

    test('when the account has no orders, then both the whole and the streamed paths answer []', async (t) => {
      const empty = await setup(t, backend);
      assert.equal(await empty.list(), '[]');
      const streamed = await setup(t, backend, { wholeLimit: 0, streamPage: 2 });
      assert.equal(await streamed.list(), '[]');
      await streamed.services.orderOperations.createOrder({ accountId: streamed.account.id, id: 1n, petId: 1n, quantity: 1 });
      assert.equal(await streamed.list(), '[{"id":1,"petId":1,"quantity":1,"complete":false}]');
    });

    test('when this process cancels, creates or ships an order, then the very next list shows it', async (t) => {
      const { services, account, list } = await setup(t, backend);
      const a = await services.orderOperations.createOrder({ accountId: account.id, id: 1n, petId: 1n, quantity: 1 });
      await services.orderOperations.createOrder({ accountId: account.id, id: 2n, petId: 2n, quantity: 1 });
      assert.equal(await list(), '[{"id":1,"petId":1,"quantity":1,"complete":false},{"id":2,"petId":2,"quantity":1,"complete":false}]');

      await services.orders.cancelOrder(account.id, a.id);
      assert.equal(await list(), '[{"id":2,"petId":2,"quantity":1,"complete":false}]');

      await services.orderOperations.createOrder({ accountId: account.id, id: 3n, petId: 3n, quantity: 1 });
      assert.equal(await list(), '[{"id":2,"petId":2,"quantity":1,"complete":false},{"id":3,"petId":3,"quantity":1,"complete":false}]');
    });

    test('when another connection to the same database cancels or creates an order, then the very next list shows it', async (t) => {
      const { config, services, account, list } = await setup(t, backend);
      await services.orderOperations.createOrder({ accountId: account.id, id: 1n, petId: 1n, quantity: 1 });
      await services.orderOperations.createOrder({ accountId: account.id, id: 2n, petId: 2n, quantity: 1 });
      assert.equal(await list(), '[{"id":1,"petId":1,"quantity":1,"complete":false},{"id":2,"petId":2,"quantity":1,"complete":false}]');

      const other = openStorage(config);
      t.after(() => other.close());
      const otherServices = testServices(other);
      await otherServices.orders.cancelOrder(account.id, 1n);
      assert.equal(await list(), '[{"id":2,"petId":2,"quantity":1,"complete":false}]');

      await otherServices.orderOperations.createOrder({ accountId: account.id, id: 3n, petId: 3n, quantity: 4 });
      assert.equal(await list(), '[{"id":2,"petId":2,"quantity":1,"complete":false},{"id":3,"petId":3,"quantity":4,"complete":false}]');
    });

    test('when another account changes, then this account still lists its own orders only', async (t) => {
      const { services, account, list } = await setup(t, backend);
      const other = await services.accounts.createAccount({ name: 'Other' });
      await services.orderOperations.createOrder({ accountId: account.id, id: 1n, petId: 1n, quantity: 1 });
      assert.equal(await list(), '[{"id":1,"petId":1,"quantity":1,"complete":false}]');
      await services.orderOperations.createOrder({ accountId: other.id, id: 2n, petId: 1n, quantity: 1 });
      assert.equal(await list(), '[{"id":1,"petId":1,"quantity":1,"complete":false}]');
    });

    test('when a streamed listing is revalidated, then its ETag gives 304 with no body until an order changes, and HEAD sends no body', async (t) => {
      const { services, account, secret, app, pageReads } = await setup(t, backend, { wholeLimit: 2, streamPage: 2 });
      for (let i = 1; i <= 7; i++) await services.orderOperations.createOrder({ accountId: account.id, id: BigInt(i), petId: 1n, quantity: i });
      const get = (headers: Record<string, string> = {}, method: 'GET' | 'HEAD' = 'GET') =>
        app.inject({ method, url: '/v1/store/orders', headers: { authorization: `Bearer ${secret}`, ...headers } });

      const first = await get();
      assert.equal(first.statusCode, 200);
      const etag = first.headers.etag;
      assert.equal(typeof etag, 'string');
      assert.equal((JSON.parse(first.body) as unknown[]).length, 7);

      const unchanged = await get({ 'if-none-match': String(etag) });
      assert.equal(unchanged.statusCode, 304);
      assert.equal(unchanged.body, '');
      assert.equal(unchanged.headers.etag, etag);

      const readsBefore = pageReads.count;
      const head = await get({}, 'HEAD');
      assert.equal(head.statusCode, 200);
      assert.equal(head.body, '');
      assert.equal(head.headers['content-type'], 'application/json; charset=utf-8');
      assert.equal(pageReads.count - readsBefore, 1, 'HEAD reads the first page only, never streams the rest');

      await services.orders.cancelOrder(account.id, 4n);
      const changed = await get({ 'if-none-match': String(etag) });
      assert.equal(changed.statusCode, 200);
      assert.notEqual(changed.headers.etag, etag);
      assert.deepEqual(
        (JSON.parse(changed.body) as { id: number }[]).map((o) => o.id),
        [1, 2, 3, 5, 6, 7],
      );
    });

    test('when a cached listing is revalidated, then a write by another connection changes its ETag', async (t) => {
      const { config, services, account, secret, app } = await setup(t, backend);
      await services.orderOperations.createOrder({ accountId: account.id, id: 1n, petId: 1n, quantity: 1 });
      const get = (headers: Record<string, string> = {}) =>
        app.inject({ method: 'GET', url: '/v1/store/orders', headers: { authorization: `Bearer ${secret}`, ...headers } });
      const etag = String((await get()).headers.etag);
      assert.equal((await get({ 'if-none-match': etag })).statusCode, 304);

      const other = openStorage(config);
      t.after(() => other.close());
      await testServices(other).orderOperations.shipOrder(1n);

      const after = await get({ 'if-none-match': etag });
      assert.equal(after.statusCode, 200);
      assert.equal(after.body, '[{"id":1,"petId":1,"quantity":1,"complete":false}]');
    });
  });
}
