import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { openStorage } from '../../../src/storage/open-storage.js';
import { createTestApp } from '../../support/app.js';
import { storageBackends } from '../../support/storage.js';
import { testServices } from '../../support/container.js';

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
