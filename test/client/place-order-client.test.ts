import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, test } from 'node:test';
import type { TestContext } from 'node:test';
// The package's own export, as a user imports it (resolved through package.json "exports" to dist/).
import { createStoreOrdersClient, StoreOrdersApiError } from 'store-orders/client';
import { stringifyJsonExact } from '../../packages/client/src/exact-json.js';
import { createTestApp } from '../support/app.js';
import { httpBackends, type TestBackend } from '../support/storage.js';

async function runningClient(t: TestContext, backend: TestBackend) {
  const testApp = await createTestApp(t, backend);
  const address = await testApp.app.listen({ host: '127.0.0.1', port: 0 });
  const { account, key } = await testApp.tenant();
  return { ...testApp, account, client: createStoreOrdersClient({ baseUrl: `${address}/v1`, apiKey: key }) };
}

for (const backend of httpBackends()) {
  describe(`store-orders/client placeOrder against a running server (${backend.name})`, () => {
    test('when the client places an order, then it gets the pending order with an exact petId, not replayed', async (t) => {
      const { client, account, services } = await runningClient(t, backend);
      const { order, replayed } = await client.placeOrder({ petId: 9223372036854775807n, quantity: 2, shipDate: new Date('2026-12-01T10:00:00Z') });
      assert.equal(replayed, false);
      assert.deepEqual({ ...order, id: 0n }, { id: 0n, petId: 9223372036854775807n, quantity: 2, shipDate: '2026-12-01T10:00:00.000Z', complete: false, status: 'pending' });
      assert.equal((await services.ordersV2.getOrder(account.id, order.id)).petId, 9223372036854775807n);
    });

    test('when the client retries with the same Idempotency-Key, then it gets the same order, replayed, and only one order exists', async (t) => {
      const { client, account, services } = await runningClient(t, backend);
      const idempotencyKey = randomUUID();
      const first = await client.placeOrder({ petId: 42n, quantity: 1 }, { idempotencyKey });
      const again = await client.placeOrder({ petId: 42n, quantity: 1 }, { idempotencyKey });
      assert.equal(first.replayed, false);
      assert.equal(again.replayed, true);
      assert.deepEqual(again.order, first.order);
      assert.equal((await services.orderOperations.listAllOrders(account.id)).length, 1);
    });

    test('when the same Idempotency-Key comes with another body, then the client throws the 422 idempotency_key_reused record', async (t) => {
      const { client, account, services } = await runningClient(t, backend);
      await client.placeOrder({ petId: 42n, quantity: 1 }, { idempotencyKey: 'order-1' });
      await assert.rejects(client.placeOrder({ petId: 42n, quantity: 5 }, { idempotencyKey: 'order-1' }), (error: unknown) => {
        assert.ok(error instanceof StoreOrdersApiError);
        assert.equal(error.code, 'idempotency_key_reused');
        assert.equal(error.status, 422);
        assert.equal(typeof error.requestId, 'string');
        return true;
      });
      await assert.rejects(client.placeOrder({ petId: 42n, quantity: 0 }), { code: 'validation_failed', status: 400 });
      await assert.rejects(client.placeOrder({ petId: 42n, quantity: 1 }, { idempotencyKey: 'é' }), { code: 'validation_failed', status: 400 });
      assert.equal((await services.orderOperations.listAllOrders(account.id)).length, 1);
    });
  });
}

describe('stringifyJsonExact', () => {
  test('when a value holds bigints, then they are written as bare integers with every digit, and strings that look alike stay strings', () => {
    assert.equal(
      stringifyJsonExact({ petId: 9007199254740993n, quantity: 2, note: 'int:9', list: [-9223372036854775808n] }),
      '{"petId":9007199254740993,"quantity":2,"note":"int:9","list":[-9223372036854775808]}',
    );
  });
});
