import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { TestContext } from 'node:test';
// The package's own export, as a user imports it (resolved through package.json "exports" to dist/).
import { createStoreOrdersClient, StoreOrdersApiError } from 'store-orders/client';
import { parseJsonExact } from '../../src/client/exact-json.js';
import { createTestApp } from '../support/app.js';
import { sqliteBackend } from '../support/storage.js';

async function runningServer(t: TestContext) {
  const testApp = await createTestApp(t, sqliteBackend);
  const address = await testApp.app.listen({ host: '127.0.0.1', port: 0 });
  return { ...testApp, baseUrl: `${address}/v1` };
}

describe('store-orders/client against a running server', () => {
  test('when the client lists and cancels, then it sees exact int64 ids and the cancelled order leaves the list', async (t) => {
    const { baseUrl, services, tenant } = await runningServer(t);
    const { account, key } = await tenant();
    const big = await services.orders.createOrder({ accountId: account.id, id: 9007199254740993n, petId: 9223372036854775807n, quantity: 2 });
    const small = await services.orders.createOrder({ accountId: account.id, id: 7n, petId: 1n, quantity: 1, shipDate: '2026-12-01T10:00:00Z' });

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
    const order = await services.orders.createOrder({ accountId: account.id, petId: 1n, quantity: 1 });
    await services.orders.shipOrder(order.id);
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
