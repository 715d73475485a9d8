import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { TestContext } from 'node:test';
// The package's own export, as a user imports it (resolved through package.json "exports" to dist/).
import { createStoreOrdersClient, StoreOrdersApiError, type OrderStatus, type OrderV2 } from 'store-orders/client';
import { parseJsonExact } from '../../packages/client/src/exact-json.js';
import { createTestApp } from '../support/app.js';
import { sqliteBackend, httpBackends, type TestBackend } from '../support/storage.js';

async function runningServer(t: TestContext, backend: TestBackend = sqliteBackend) {
  const testApp = await createTestApp(t, backend);
  const address = await testApp.app.listen({ host: '127.0.0.1', port: 0 });
  return { ...testApp, origin: address, baseUrl: `${address}/v1` };
}

describe('store-orders/client against a running server', () => {
  test('when the client lists and cancels, then it sees exact int64 ids and the cancelled order leaves the list', async (t) => {
    const { baseUrl, services, tenant } = await runningServer(t);
    const { account, key } = await tenant();
    const big = await services.orderOperations.createOrder({ accountId: account.id, id: 9007199254740993n, petId: 9223372036854775807n, quantity: 2 });
    const small = await services.orderOperations.createOrder({ accountId: account.id, id: 7n, petId: 1n, quantity: 1, shipDate: '2026-12-01T10:00:00Z' });

    const client = createStoreOrdersClient({ baseUrl, apiKey: key });
    assert.deepEqual(await client.listOrders(), [
      { id: 7n, petId: 1n, quantity: 1, shipDate: '2026-12-01T10:00:00.000Z', complete: false },
      { id: 9007199254740993n, petId: 9223372036854775807n, quantity: 2, complete: false },
    ]);

    await client.cancelOrder(big.id);
    assert.deepEqual((await client.listOrders()).map((o) => o.id), [small.id]);
  });

  test('when the API refuses, then the client throws StoreOrdersApiError with the code, status and request id', async (t) => {
    const { baseUrl, services, tenant } = await runningServer(t);
    const { account, key } = await tenant();
    const order = await services.orderOperations.createOrder({ accountId: account.id, petId: 1n, quantity: 1 });
    await services.orderOperations.shipOrder(order.id);
    const client = createStoreOrdersClient({ baseUrl, apiKey: key });

    await assert.rejects(client.cancelOrder(order.id), (error: unknown) => {
      assert.ok(error instanceof StoreOrdersApiError);
      assert.equal(error.code, 'order_already_shipped');
      assert.equal(error.status, 409);
      assert.equal(typeof error.requestId, 'string');
      return true;
    });
    await assert.rejects(client.cancelOrder(123456n), { code: 'order_not_found', status: 404 });
    await assert.rejects(createStoreOrdersClient({ baseUrl, apiKey: 'wrong' }).listOrders(), { code: 'invalid_api_key', status: 401 });
  });

  test('when the client looks up a pet, then it gets the Pet record with an exact id', async (t) => {
    const { baseUrl, services, tenant } = await runningServer(t);
    const { account, key } = await tenant();
    await services.pets.createPet({ accountId: account.id, name: 'Rex', id: 9223372036854775807n });
    const client = createStoreOrdersClient({ baseUrl, apiKey: key });
    assert.deepEqual(await client.getPet(9223372036854775807n), { id: 9223372036854775807n, name: 'Rex' });
  });
});

describe('parseJsonExact', () => {
  test('when integers sit under int64 keys, then they become exact bigints and other numbers stay numbers', () => {
    assert.deepEqual(
      parseJsonExact('[{"id":-9223372036854775808,"petId":9007199254740993,"quantity":3,"x":1.5e3,"s":"id: 12 \\" 34","n":[1,-2]}]', new Set(['id', 'petId'])),
      [{ id: -9223372036854775808n, petId: 9007199254740993n, quantity: 3, x: 1500, s: 'id: 12 " 34', n: [1, -2] }],
    );
  });

  test('when the text is not JSON, then it throws like JSON.parse', () => {
    assert.throws(() => parseJsonExact('{"id": 01}', new Set(['id'])), SyntaxError);
    assert.throws(() => parseJsonExact('{"id": }', new Set(['id'])), SyntaxError);
  });
});

/** 2^53 + 1: the first integer a JS number cannot hold. */
const BEYOND_2_53 = 9007199254740993n;

for (const backend of httpBackends()) {
  describe(`store-orders/client v2 (beta) against a running server (${backend.name})`, () => {
    test('when the client pages through a filtered v2 listing, then it gets exactly the matching orders, once each, with exact int64 ids', async (t) => {
      const { baseUrl, services, tenant } = await runningServer(t, backend);
      const { account, key } = await tenant();
      const other = await tenant();
      const pet = 9223372036854775807n;
      const created: OrderV2[] = [];
      for (let i = 0n; i < 14n; i++) {
        const id = BEYOND_2_53 + i * 2n;
        const shipDate = i % 3n === 0n ? undefined : `2026-12-${String(1n + i).padStart(2, '0')}T10:00:00.000Z`;
        await services.orderOperations.createOrder({
          accountId: account.id,
          id,
          petId: i % 4n === 3n ? 1n : pet,
          quantity: Number(i) + 1,
          ...(shipDate === undefined ? {} : { shipDate }),
          complete: i % 5n === 0n,
        });
        let status: OrderStatus = 'pending';
        if (i % 4n === 1n) {
          await services.orderOperations.shipOrder(id);
          status = 'shipped';
        } else if (i % 4n === 2n) {
          await services.orders.cancelOrder(account.id, id);
          status = 'cancelled';
        }
        created.push({
          id,
          status,
          complete: i % 5n === 0n,
          petId: i % 4n === 3n ? 1n : pet,
          quantity: Number(i) + 1,
          ...(shipDate === undefined ? {} : { shipDate }),
        });
      }
      await services.orderOperations.createOrder({ accountId: other.account.id, id: BEYOND_2_53 - 2n, petId: pet, quantity: 1 });
      const client = createStoreOrdersClient({ baseUrl, apiKey: key });

      const filter = { status: ['pending', 'shipped'] as const, petId: pet };
      const expected = created.filter((o) => filter.status.includes(o.status as 'pending' | 'shipped') && o.petId === pet);
      assert.ok(expected.length >= 6, 'the filter spans several pages');

      const pages: OrderV2[][] = [];
      let cursor: string | undefined;
      do {
        const page = await client.listOrdersV2({ ...filter, limit: 2, ...(cursor === undefined ? {} : { cursor }) });
        assert.ok(page.data.length <= 2);
        pages.push(page.data);
        cursor = page.nextCursor ?? undefined;
      } while (cursor !== undefined);
      assert.ok(pages.length >= 3, `${pages.length} pages`);
      assert.deepEqual(pages.flat(), expected);

      const walked: OrderV2[] = [];
      for await (const order of client.allOrdersV2({ ...filter, limit: 3 })) walked.push(order);
      assert.deepEqual(walked, expected);

      // Ship-date bounds as Dates or text, half-open; complete as a boolean.
      const december = { shipDateFrom: new Date('2026-12-05T00:00:00Z'), shipDateTo: '2026-12-11T10:00:00Z' };
      const inDecember = created.filter((o) => o.shipDate !== undefined && o.shipDate >= '2026-12-05T00:00:00.000Z' && o.shipDate < '2026-12-11T10:00:00.000Z');
      assert.equal(inDecember.length, 4, 'the 11th at 10:00 is the excluded upper bound');
      const dated: OrderV2[] = [];
      for await (const order of client.allOrdersV2({ ...december, limit: 1 })) dated.push(order);
      assert.deepEqual(dated, inDecember);
      assert.deepEqual((await client.listOrdersV2({ complete: true })).data, created.filter((o) => o.complete));
      assert.deepEqual((await client.listOrdersV2({ status: ['cancelled'] })).data, created.filter((o) => o.status === 'cancelled'));
    });

    test('when the client gets and cancels through v2, then the order shows cancelled, and the second cancel throws order_already_cancelled', async (t) => {
      const { baseUrl, services, tenant } = await runningServer(t, backend);
      const { account, key } = await tenant();
      const pending = await services.orderOperations.createOrder({ accountId: account.id, id: BEYOND_2_53, petId: BEYOND_2_53 + 1n, quantity: 2 });
      const shipped = await services.orderOperations.createOrder({ accountId: account.id, id: 9223372036854775807n, petId: 1n, quantity: 1 });
      await services.orderOperations.shipOrder(shipped.id);
      const client = createStoreOrdersClient({ baseUrl, apiKey: key });

      assert.deepEqual(await client.getOrderV2(BEYOND_2_53), { id: BEYOND_2_53, status: 'pending', complete: false, petId: BEYOND_2_53 + 1n, quantity: 2 });
      await client.cancelOrderV2(pending.id);
      assert.deepEqual(await client.getOrderV2(BEYOND_2_53), { id: BEYOND_2_53, status: 'cancelled', complete: false, petId: BEYOND_2_53 + 1n, quantity: 2 });
      // Exactly this order, not its rounded neighbour 2^53.
      await assert.rejects(client.getOrderV2(BEYOND_2_53 - 1n), { code: 'order_not_found', status: 404 });

      await assert.rejects(client.cancelOrderV2(pending.id), (error: unknown) => {
        assert.ok(error instanceof StoreOrdersApiError);
        assert.equal(error.code, 'order_already_cancelled');
        assert.equal(error.status, 409);
        assert.equal(typeof error.requestId, 'string');
        return true;
      });
      await assert.rejects(client.cancelOrderV2(shipped.id), { code: 'order_already_shipped', status: 409 });
      // v1 keeps hiding the cancelled order.
      assert.deepEqual((await client.listOrders()).map((o) => o.id), [shipped.id]);
      await assert.rejects(client.listOrdersV2({ cursor: 'not-a-cursor' }), { code: 'invalid_cursor', status: 400 });
      await assert.rejects(client.listOrdersV2({ limit: 501 }), { code: 'validation_failed', status: 400 });
    });
  });
}

describe('store-orders/client v2 base URL', () => {
  test('when baseUrl does not end in /v1, then the v2 methods need v2BaseUrl; with it they work', async (t) => {
    const { origin, services, tenant } = await runningServer(t);
    const { account, key } = await tenant();
    await services.orderOperations.createOrder({ accountId: account.id, id: 5n, petId: 1n, quantity: 1 });
    const unversioned = createStoreOrdersClient({ baseUrl: `${origin}/v1/`, apiKey: key });
    assert.deepEqual((await unversioned.listOrdersV2()).data.map((o) => o.id), [5n], 'a trailing slash after /v1 is fine');
    const proxied = createStoreOrdersClient({ baseUrl: `${origin}/api`, apiKey: key });
    await assert.rejects(proxied.listOrdersV2(), /v2BaseUrl/);
    const explicit = createStoreOrdersClient({ baseUrl: `${origin}/api`, v2BaseUrl: `${origin}/v2`, apiKey: key });
    assert.deepEqual(await explicit.getOrderV2(5n), { id: 5n, status: 'pending', complete: false, petId: 1n, quantity: 1 });
  });
});
