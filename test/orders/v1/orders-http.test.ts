import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createTestApp, errorBody } from '../../support/app.js';
import { httpBackends } from '../../support/storage.js';

for (const backend of httpBackends()) {
  describe(`v1 orders over HTTP (${backend.name})`, () => {
    test('when the account has orders, then GET /v1/store/orders lists exactly the five documented fields, by id', async (t) => {
      const { app, services, tenant } = await createTestApp(t, backend);
      const { account, auth } = await tenant();
      await services.orderOperations.createOrder({ accountId: account.id, id: 20n, petId: 7n, quantity: 3, shipDate: '2026-12-01T12:00:00+02:00', complete: true });
      await services.orderOperations.createOrder({ accountId: account.id, id: 10n, petId: 8n, quantity: 1 });

      const response = await app.inject({ method: 'GET', url: '/v1/store/orders', headers: auth });

      assert.equal(response.statusCode, 200);
      assert.match(String(response.headers['content-type']), /^application\/json/);
      assert.equal(
        response.body,
        '[{"id":10,"petId":8,"quantity":1,"complete":false},' +
          '{"id":20,"petId":7,"quantity":3,"shipDate":"2026-12-01T10:00:00.000Z","complete":true}]',
      );
    });

    test('when the account has no orders, then the list is an empty array', async (t) => {
      const { app, tenant } = await createTestApp(t, backend);
      const { auth } = await tenant();
      const response = await app.inject({ method: 'GET', url: '/v1/store/orders', headers: auth });
      assert.equal(response.statusCode, 200);
      assert.deepEqual(response.json(), []);
    });

    test('when ids exceed 2^53, then they are listed and cancelled with exact digits', async (t) => {
      const { app, services, tenant } = await createTestApp(t, backend);
      const { account, auth } = await tenant();
      const id = 9007199254740993n;
      const max = 9223372036854775807n;
      await services.orderOperations.createOrder({ accountId: account.id, id, petId: max, quantity: 1 });
      await services.orderOperations.createOrder({ accountId: account.id, id: max, petId: id, quantity: 1 });

      const list = await app.inject({ method: 'GET', url: '/v1/store/orders', headers: auth });
      assert.equal(
        list.body,
        '[{"id":9007199254740993,"petId":9223372036854775807,"quantity":1,"complete":false},' +
          '{"id":9223372036854775807,"petId":9007199254740993,"quantity":1,"complete":false}]',
      );

      const cancel = await app.inject({ method: 'DELETE', url: '/v1/store/orders/9007199254740993', headers: auth });
      assert.equal(cancel.statusCode, 204);
      // 2^53 + 1 rounds to 2^53 as a JS number: the neighbour must be untouched.
      assert.equal((await services.orderOperations.listAllOrders(account.id)).find((o) => o.id === max)?.status, 'pending');
      assert.equal((await services.orderOperations.listAllOrders(account.id)).find((o) => o.id === id)?.status, 'cancelled');
    });

    test('when a pending order is cancelled, then 204 with no body and it leaves the v1 list', async (t) => {
      const { app, services, tenant } = await createTestApp(t, backend);
      const { account, auth } = await tenant();
      const order = await services.orderOperations.createOrder({ accountId: account.id, petId: 1n, quantity: 1 });
      const other = await services.orderOperations.createOrder({ accountId: account.id, petId: 2n, quantity: 1 });

      const response = await app.inject({ method: 'DELETE', url: `/v1/store/orders/${order.id}`, headers: auth });

      assert.equal(response.statusCode, 204);
      assert.equal(response.body, '');
      assert.equal(response.headers['content-type'], undefined);
      const list = await app.inject({ method: 'GET', url: '/v1/store/orders', headers: auth });
      assert.deepEqual(
        (list.json() as { id: number }[]).map((o) => o.id),
        [Number(other.id)],
      );
    });

    test('when the order is cancelled twice, then the second answer is 404', async (t) => {
      const { app, services, tenant } = await createTestApp(t, backend);
      const { account, auth } = await tenant();
      const order = await services.orderOperations.createOrder({ accountId: account.id, petId: 1n, quantity: 1 });
      assert.equal((await app.inject({ method: 'DELETE', url: `/v1/store/orders/${order.id}`, headers: auth })).statusCode, 204);

      const again = await app.inject({ method: 'DELETE', url: `/v1/store/orders/${order.id}`, headers: auth });

      assert.equal(again.statusCode, 404);
      assert.equal(errorBody(again).code, 'order_not_found');
    });

    test('when the order has shipped, then cancel is 409 with an Error record and the order is unchanged', async (t) => {
      const { app, services, tenant } = await createTestApp(t, backend);
      const { account, auth } = await tenant();
      const order = await services.orderOperations.createOrder({ accountId: account.id, petId: 1n, quantity: 1 });
      await services.orderOperations.shipOrder(order.id);

      const response = await app.inject({ method: 'DELETE', url: `/v1/store/orders/${order.id}`, headers: auth });

      assert.equal(response.statusCode, 409);
      assert.equal(errorBody(response).code, 'order_already_shipped');
      assert.equal((await services.orderOperations.listAllOrders(account.id))[0]?.status, 'shipped');
      const list = await app.inject({ method: 'GET', url: '/v1/store/orders', headers: auth });
      assert.equal((list.json() as unknown[]).length, 1);
    });

    test('when the order does not exist, then cancel is 404 with an Error record', async (t) => {
      const { app, tenant } = await createTestApp(t, backend);
      const { auth } = await tenant();
      for (const id of ['1', '0', '-1', '9223372036854775807', '-9223372036854775808']) {
        const response = await app.inject({ method: 'DELETE', url: `/v1/store/orders/${id}`, headers: auth });
        assert.equal(response.statusCode, 404, id);
        assert.equal(errorBody(response).code, 'order_not_found');
      }
    });

    test("when the order belongs to another account, then it is 404 exactly like a missing one, and it is not cancelled", async (t) => {
      const { app, services, tenant } = await createTestApp(t, backend);
      const owner = await tenant();
      const intruder = await tenant();
      const order = await services.orderOperations.createOrder({ accountId: owner.account.id, petId: 1n, quantity: 1 });
      const shipped = await services.orderOperations.createOrder({ accountId: owner.account.id, petId: 1n, quantity: 1 });
      await services.orderOperations.shipOrder(shipped.id);

      const foreign = await app.inject({ method: 'DELETE', url: `/v1/store/orders/${order.id}`, headers: intruder.auth });
      const foreignShipped = await app.inject({ method: 'DELETE', url: `/v1/store/orders/${shipped.id}`, headers: intruder.auth });
      const missing = await app.inject({ method: 'DELETE', url: '/v1/store/orders/987654321', headers: intruder.auth });

      assert.equal(foreign.statusCode, 404);
      assert.equal(foreignShipped.statusCode, 404, 'a shipped order of another account must not answer 409');
      const strip = (body: string) => body.replace(/\d+/g, 'N');
      assert.equal(strip(foreign.body), strip(missing.body));
      assert.equal(strip(foreignShipped.body), strip(missing.body));
      const intruderList = await app.inject({ method: 'GET', url: '/v1/store/orders', headers: intruder.auth });
      assert.deepEqual(intruderList.json(), []);
      assert.equal((await services.orderOperations.listAllOrders(owner.account.id))[0]?.status, 'pending');
    });

    test('when orderId is not a canonical decimal int64, then 400 with an Error record naming orderId', async (t) => {
      const { app, tenant } = await createTestApp(t, backend);
      const { auth } = await tenant();
      const bad = ['abc', '1.5', '1e3', '99999999999999999999', '9223372036854775808', '-9223372036854775809', '%00', '+1', '007', '%201', '0x10', '-0', '1%20'];
      for (const id of bad) {
        const response = await app.inject({ method: 'DELETE', url: `/v1/store/orders/${id}`, headers: auth });
        assert.equal(response.statusCode, 400, id);
        const error = errorBody(response);
        assert.equal(error.code, 'validation_failed', id);
        assert.match(error.message, /orderId/);
      }
    });

    test('when the URL has malformed percent-encoding, then 400 with an Error record', async (t) => {
      const { app, tenant } = await createTestApp(t, backend);
      const { auth } = await tenant();
      const response = await app.inject({ method: 'DELETE', url: '/v1/store/orders/%zz', headers: auth });
      assert.equal(response.statusCode, 400);
      assert.equal(errorBody(response).code, 'malformed_request');
      assert.ok(response.headers['x-request-id']);
    });

    test('when many cancels of one pending order race, then exactly one gets 204 and the rest 404', async (t) => {
      const { app, services, tenant } = await createTestApp(t, backend);
      const { account, auth } = await tenant();
      const order = await services.orderOperations.createOrder({ accountId: account.id, petId: 1n, quantity: 1 });

      const responses = await Promise.all(
        Array.from({ length: 50 }, () => app.inject({ method: 'DELETE', url: `/v1/store/orders/${order.id}`, headers: auth })),
      );

      const statuses = responses.map((r) => r.statusCode).sort();
      assert.equal(statuses.filter((s) => s === 204).length, 1);
      assert.equal(statuses.filter((s) => s === 404).length, 49);
    });

    test('when DELETE carries an unsupported Content-Type or broken JSON, then 400 (not 415) and the order is untouched', async (t) => {
      const { app, services, tenant } = await createTestApp(t, backend);
      const { account, auth } = await tenant();
      const order = await services.orderOperations.createOrder({ accountId: account.id, petId: 1n, quantity: 1 });
      const odd = await app.inject({
        method: 'DELETE',
        url: `/v1/store/orders/${order.id}`,
        headers: { ...auth, 'content-type': 'application/x-unknown' },
        payload: 'hello',
      });
      assert.equal(odd.statusCode, 400);
      assert.equal(errorBody(odd).code, 'malformed_request');
      const badJson = await app.inject({
        method: 'DELETE',
        url: `/v1/store/orders/${order.id}`,
        headers: { ...auth, 'content-type': 'application/json' },
        payload: '{"oops"',
      });
      assert.equal(badJson.statusCode, 400);
      assert.equal(errorBody(badJson).code, 'malformed_request');
      assert.equal((await services.orderOperations.listAllOrders(account.id))[0]?.status, 'pending');
    });

    test('when the body is larger than 1 MiB, then 413 with an Error record', async (t) => {
      const { app, services, tenant } = await createTestApp(t, backend);
      const { account, auth } = await tenant();
      const order = await services.orderOperations.createOrder({ accountId: account.id, petId: 1n, quantity: 1 });
      const response = await app.inject({
        method: 'DELETE',
        url: `/v1/store/orders/${order.id}`,
        headers: { ...auth, 'content-type': 'application/json' },
        payload: `"${'x'.repeat(1024 * 1024 + 10)}"`,
      });
      assert.equal(response.statusCode, 413);
      assert.equal(errorBody(response).code, 'payload_too_large');
    });
  });
}
