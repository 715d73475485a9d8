import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { openStorage } from '../../../src/storage/open-storage.js';
import { createIdempotencyService } from '../../../src/idempotency/idempotency-service.js';
import { buildTestStoreApp, createTestApp, errorBody } from '../../support/app.js';
import { testConfig, testServices } from '../../support/container.js';
import { capturingLogger } from '../../support/logs.js';
import { manualClock } from '../../support/quickstart.js';
import { httpBackends, storageBackends } from '../../support/storage.js';

const JSON_TYPE = { 'content-type': 'application/json' };
const URL = '/v2/store/orders';

for (const backend of httpBackends()) {
  describe(`placeOrder over HTTP (${backend.name})`, () => {
    test('when an order is placed, then 201 with the pending order, Location, and its order.created event', async (t) => {
      const { app, services, tenant } = await createTestApp(t, backend);
      const { account, auth } = await tenant();
      const response = await app.inject({
        method: 'POST',
        url: URL,
        headers: { ...auth, ...JSON_TYPE },
        payload: '{"petId": 9007199254740993, "quantity": 2, "shipDate": "2026-12-01T12:00:00+02:00"}',
      });
      assert.equal(response.statusCode, 201);
      assert.equal(response.body, `{"id":1,"status":"pending","complete":false,"petId":9007199254740993,"quantity":2,"shipDate":"2026-12-01T10:00:00.000Z"}`);
      assert.equal(response.headers.location, '/v2/store/orders/1');
      const [order] = await services.orderOperations.listAllOrders(account.id);
      assert.equal(order?.petId, 9007199254740993n);
      const { events } = await services.events.listEvents(account.id, { filter: {}, limit: 10 });
      assert.deepEqual(events.map((event) => event.type), ['order.created']);
    });

    test('when an order is placed, then its order_created audit entry names the key; a replay with the same Idempotency-Key adds none', async (t) => {
      const { app, services, tenant } = await createTestApp(t, backend);
      const { account } = await tenant();
      const { secret, apiKey } = await services.apiKeys.createKey({ accountId: account.id, name: 'till' });
      const place = () => app.inject({ method: 'POST', url: URL, headers: { authorization: `Bearer ${secret}`, ...JSON_TYPE, 'idempotency-key': 'audit-once' }, payload: '{"petId":1,"quantity":1}' });
      assert.equal((await place()).statusCode, 201);
      assert.equal((await place()).headers['idempotent-replayed'], 'true');
      const created = (await services.audit.list(account.id, { limit: 50 })).entries.filter((entry) => entry.action === 'order_created');
      assert.deepEqual(
        created.map((entry) => [entry.actor, entry.target]),
        [[{ kind: 'key', id: apiKey.id }, { kind: 'order', id: '1' }]],
      );
    });

    test('when a field is out of range, missing, or not an int64, then 400 validation_failed and no order', async (t) => {
      const { app, services, tenant } = await createTestApp(t, backend);
      const { account, auth } = await tenant();
      for (const payload of [
        '{"petId": 1, "quantity": 0}',
        '{"petId": 1, "quantity": 2147483648}',
        '{"petId": 1, "quantity": 1.5}',
        '{"quantity": 1}',
        '{"petId": 9223372036854775808, "quantity": 1}',
        '{"petId": 1, "quantity": 1, "shipDate": "tomorrow"}',
      ]) {
        const response = await app.inject({ method: 'POST', url: URL, headers: { ...auth, ...JSON_TYPE }, payload });
        assert.equal(response.statusCode, 400, payload);
        assert.equal(errorBody(response).code, 'validation_failed', payload);
      }
      assert.deepEqual(await services.orderOperations.listAllOrders(account.id), []);
    });

    test('when the key lacks orders:write, then 403 insufficient_scope', async (t) => {
      const { app, services, tenant } = await createTestApp(t, backend);
      const { account } = await tenant();
      const { secret } = await services.apiKeys.createKey({ accountId: account.id, scopes: ['orders:read'] });
      const response = await app.inject({ method: 'POST', url: URL, headers: { authorization: `Bearer ${secret}`, ...JSON_TYPE }, payload: '{"petId":1,"quantity":1}' });
      assert.equal(response.statusCode, 403);
      assert.equal(errorBody(response).code, 'insufficient_scope');
    });

    test('when the Idempotency-Key is over 255 characters, then 400 validation_failed naming the header, and 255 is accepted', async (t) => {
      const { app, tenant } = await createTestApp(t, backend);
      const { auth } = await tenant();
      const send = (key: string) => app.inject({ method: 'POST', url: URL, headers: { ...auth, ...JSON_TYPE, 'idempotency-key': key }, payload: '{"petId":1,"quantity":1}' });
      const long = await send('k'.repeat(256));
      assert.equal(long.statusCode, 400);
      assert.equal(errorBody(long).code, 'validation_failed');
      assert.match(errorBody(long).message, /^Header idempotency-key is not valid/);
      assert.equal((await send('k'.repeat(255))).statusCode, 201);
      assert.equal((await send('caf\u00e9')).statusCode, 400);
    });
  });
}

for (const backend of storageBackends()) {
  describe(`placeOrder with Idempotency-Key (${backend.name})`, () => {
    test('when the same key and body are sent again, then the first response is replayed and one order exists', async (t) => {
      const { app, services, tenant } = await createTestApp(t, backend);
      const { account, auth } = await tenant();
      const headers = { ...auth, ...JSON_TYPE, 'idempotency-key': 'place-1' };
      const first = await app.inject({ method: 'POST', url: URL, headers, payload: '{"petId":7,"quantity":1}' });
      await services.ordersV2.cancelOrder(account.id, 1n);
      const second = await app.inject({ method: 'POST', url: URL, headers, payload: '{ "quantity" : 1, "petId" : 7 }' });
      assert.equal(first.statusCode, 201);
      assert.equal(second.statusCode, 201);
      assert.equal(first.headers['idempotent-replayed'], undefined);
      assert.equal(second.headers['idempotent-replayed'], 'true');
      assert.equal(second.body, first.body);
      assert.equal(second.headers.location, first.headers.location);
      assert.equal((await services.orderOperations.listAllOrders(account.id)).length, 1);
      // Another account's identical key is its own.
      const other = await tenant();
      const theirs = await app.inject({ method: 'POST', url: URL, headers: { ...other.auth, ...JSON_TYPE, 'idempotency-key': 'place-1' }, payload: '{"petId":7,"quantity":1}' });
      assert.equal(theirs.headers['idempotent-replayed'], undefined);
      assert.equal(theirs.statusCode, 201);
    });

    test('when the same key comes with a different body, then 422 idempotency_key_reused; a refusal is replayed too', async (t) => {
      const { app, services, tenant } = await createTestApp(t, backend);
      const { account, auth } = await tenant();
      const headers = { ...auth, ...JSON_TYPE, 'idempotency-key': 'place-2' };
      await app.inject({ method: 'POST', url: URL, headers, payload: '{"petId":7,"quantity":1}' });
      const reused = await app.inject({ method: 'POST', url: URL, headers, payload: '{"petId":7,"quantity":2}' });
      assert.equal(reused.statusCode, 422);
      assert.equal(errorBody(reused).code, 'idempotency_key_reused');
      const refusedHeaders = { ...headers, 'idempotency-key': 'place-3' };
      const refused = await app.inject({ method: 'POST', url: URL, headers: refusedHeaders, payload: '{"petId":7,"quantity":0}' });
      const again = await app.inject({ method: 'POST', url: URL, headers: refusedHeaders, payload: '{"petId":7,"quantity":0}' });
      assert.equal(refused.statusCode, 400);
      assert.equal(again.statusCode, 400);
      assert.equal(again.headers['idempotent-replayed'], 'true');
      assert.equal(again.body, refused.body);
      assert.equal((await services.orderOperations.listAllOrders(account.id)).length, 1);
    });

    test('when two processes race with one key, then exactly one order is placed and every answer is it or 409 in use', async (t) => {
      const { app, database, services, tenant } = await createTestApp(t, backend);
      const { account, auth } = await tenant();
      const otherStorage = openStorage(database);
      t.after(() => otherStorage.close());
      const config = testConfig();
      const otherApp = await buildTestStoreApp({ logger: capturingLogger().logger, services: testServices(otherStorage, { config }), storage: otherStorage, config });
      t.after(() => otherApp.close());
      const headers = { ...auth, ...JSON_TYPE, 'idempotency-key': 'race' };
      const responses = await Promise.all(
        Array.from({ length: 12 }, (_, i) => (i % 2 === 0 ? app : otherApp).inject({ method: 'POST', url: URL, headers, payload: '{"petId":3,"quantity":4}' })),
      );
      assert.equal((await services.orderOperations.listAllOrders(account.id)).length, 1);
      const placed = responses.filter((response) => response.statusCode === 201);
      assert.ok(placed.length >= 1);
      assert.equal(placed.filter((response) => response.headers['idempotent-replayed'] === undefined).length, 1);
      for (const response of placed) assert.equal(response.body, placed[0]?.body);
      for (const response of responses.filter((r) => r.statusCode !== 201)) {
        assert.equal(response.statusCode, 409);
        assert.equal(errorBody(response).code, 'idempotency_key_in_use');
        assert.ok(response.headers['retry-after']);
      }
    });

    test('when the first request is still running, then a repeat waits and gets 409; after its lease a repeat proceeds', async (t) => {
      const { storage } = await backend.freshDatabase(t);
      const services = testServices(storage);
      const account = await services.accounts.createAccount({ name: 'Store' });
      const clock = manualClock();
      const idempotency = createIdempotencyService({ idempotencyRepository: storage.idempotency, clock, waitMs: 200, pollMs: 50 });
      const first = await idempotency.begin(account.id, 'slow', 'fp');
      assert.equal(first.kind, 'claimed');
      await assert.rejects(idempotency.begin(account.id, 'slow', 'fp'), { code: 'idempotency_key_in_use' });
      await assert.rejects(idempotency.begin(account.id, 'slow', 'other'), { code: 'idempotency_key_reused' });
      clock.advance(61_000);
      const takeover = await idempotency.begin(account.id, 'slow', 'fp');
      assert.equal(takeover.kind, 'claimed');
      // The first claim is lost: completing it changes nothing.
      if (first.kind === 'claimed') assert.equal(await storage.idempotency.complete(first.claim, { status: 201, headers: {}, body: '{}' }), false);
      clock.advance(24 * 60 * 60 * 1000);
      assert.equal(await idempotency.pruneExpired(100), 1);
    });
  });
}
