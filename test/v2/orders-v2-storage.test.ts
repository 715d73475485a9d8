import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { AppError } from '../../src/errors/errors.js';
import { openStorage } from '../../src/storage/open-storage.js';
import { testBackends } from '../support/storage.js';
import { testServices } from '../support/container.js';

const AT = '2026-11-21T12:00:00.000Z';

for (const backend of testBackends()) {
  describe(`orders v2 storage and service (${backend.name})`, () => {
    test('when orders are written through another handle on the same database, then the account\'s version moves and no other account\'s does', async (t) => {
      const { config, storage } = await backend.freshDatabase(t);
      const other = openStorage(config);
      t.after(() => other.close());
      const a = await storage.accounts.create({ name: 'A', createdAt: AT });
      const b = await storage.accounts.create({ name: 'B', createdAt: AT });
      assert.equal(await storage.orders.ordersVersion(a.id), 0n);
      assert.equal(await storage.orders.ordersVersion(999), 0n, 'unknown account');

      const order = await other.orders.create({ accountId: a.id, petId: 1n, complete: false, status: 'pending', createdAt: AT });
      assert.equal(await storage.orders.ordersVersion(a.id), 1n);
      await other.orders.changeStatus({ id: order.id, from: 'pending', to: 'shipped', at: AT });
      assert.equal(await storage.orders.ordersVersion(a.id), 2n);
      // A refused change writes nothing and moves nothing.
      await other.orders.changeStatus({ id: order.id, from: 'pending', to: 'cancelled', at: AT });
      assert.equal(await storage.orders.ordersVersion(a.id), 2n);
      assert.equal(await storage.orders.ordersVersion(b.id), 0n);
    });

    test('when many accounts\' versions are read at once, then each gets its own, and a write acknowledged before a read is seen by it', async (t) => {
      const { config, storage } = await backend.freshDatabase(t);
      const other = openStorage(config);
      t.after(() => other.close());
      const accounts = [];
      for (let i = 0; i < 6; i++) accounts.push(await storage.accounts.create({ name: `A${i}`, createdAt: AT }));
      for (const [i, account] of accounts.entries()) {
        for (let n = 0; n < i; n++) await other.orders.create({ accountId: account.id, petId: 1n, complete: false, status: 'pending', createdAt: AT });
      }
      const ids = [...accounts.map((a) => a.id), 999, ...accounts.map((a) => a.id)];
      assert.deepEqual(await Promise.all(ids.map((id) => storage.orders.ordersVersion(id))), [0n, 1n, 2n, 3n, 4n, 5n, 0n, 0n, 1n, 2n, 3n, 4n, 5n]);

      // Reads in flight while the next write commits: the read issued after
      // the commit was acknowledged must see it.
      const first = accounts[0]?.id ?? 0;
      const during = storage.orders.ordersVersion(first);
      await other.orders.create({ accountId: first, petId: 1n, complete: false, status: 'pending', createdAt: AT });
      const after = storage.orders.ordersVersion(first);
      assert.ok((await during) <= 1n);
      assert.equal(await after, 1n);
    });

    test('when a page is asked for, then it holds at most `limit` orders after `afterId`, by id, of that account only', async (t) => {
      const { storage } = await backend.freshDatabase(t);
      const a = await storage.accounts.create({ name: 'A', createdAt: AT });
      const b = await storage.accounts.create({ name: 'B', createdAt: AT });
      for (const id of [5n, 1n, 9n, 3n, 7n]) await storage.orders.create({ id, accountId: a.id, complete: false, status: 'pending', createdAt: AT });
      await storage.orders.create({ id: 4n, accountId: b.id, complete: false, status: 'pending', createdAt: AT });
      const ids = async (afterId: bigint | undefined, limit: number) =>
        (await storage.orders.listPage({ accountId: a.id, filter: {}, afterId, limit })).map((o) => o.id);
      assert.deepEqual(await ids(undefined, 2), [1n, 3n]);
      assert.deepEqual(await ids(3n, 2), [5n, 7n]);
      assert.deepEqual(await ids(7n, 10), [9n]);
      assert.deepEqual(await ids(9n, 10), []);
      assert.deepEqual(await ids(-9223372036854775808n, 10), [1n, 3n, 5n, 7n, 9n]);
    });

    test('when the service is given a limit outside 1..500, then validation_failed naming limit', async (t) => {
      const { storage } = await backend.freshDatabase(t);
      const services = testServices(storage);
      const account = await services.accounts.createAccount({ name: 'Limits' });
      for (const limit of [0, 501, 1.5, -1]) {
        await assert.rejects(services.ordersV2.openListing(account.id, { filter: {}, limit }), (error: unknown) => {
          assert.ok(error instanceof AppError);
          assert.equal(error.code, 'validation_failed');
          assert.match(error.message, /limit/);
          return true;
        });
      }
    });
  });
}
