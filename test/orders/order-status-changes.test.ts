import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { AppError } from '../../src/errors/errors.js';
import { createBatcher } from '../../src/shared/batcher.js';
import type { OrdersRepository } from '../../src/orders/orders-repository.js';
import { openStorage } from '../../src/storage/open-storage.js';
import { storageBackends } from '../support/storage.js';
import { testServices } from '../support/container.js';

type Outcome = 'cancelled' | 'order_not_found' | 'order_already_shipped';

async function outcome(promise: Promise<void>): Promise<Outcome> {
  try {
    await promise;
    return 'cancelled';
  } catch (error) {
    if (error instanceof AppError && (error.code === 'order_not_found' || error.code === 'order_already_shipped')) return error.code;
    throw error;
  }
}

describe('group commit', () => {
  test('when calls arrive together, then they share one commit and each gets its own result, in order', async () => {
    const batches: number[][] = [];
    const call = createBatcher(async (batch: readonly number[]) => {
      batches.push([...batch]);
      return batch.map((n) => n * 2);
    });
    const results = await Promise.all([1, 2, 3, 4].map(call));
    assert.deepEqual(results, [2, 4, 6, 8]);
    assert.deepEqual(batches, [[1, 2, 3, 4]]);
  });

  test('when calls arrive while a commit is in flight, then they wait for and share the next one', async () => {
    const batches: number[][] = [];
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const call = createBatcher(async (batch: readonly number[]) => {
      batches.push([...batch]);
      if (batches.length === 1) await gate;
      return [...batch];
    });
    const first = call(1);
    await new Promise((resolve) => setImmediate(resolve));
    const later = [call(2), call(3)];
    release();
    assert.deepEqual(await Promise.all([first, ...later]), [1, 2, 3]);
    assert.deepEqual(batches, [[1], [2, 3]]);
  });

  test('when the commit fails, then every call of that batch is rejected and the next batch still runs', async () => {
    let attempts = 0;
    const call = createBatcher(async (batch: readonly string[]) => {
      attempts++;
      if (attempts === 1) throw new Error('disk full');
      return batch.map((s) => s.toUpperCase());
    });
    const failed = await Promise.allSettled([call('a'), call('b')]);
    assert.deepEqual(failed.map((r) => r.status), ['rejected', 'rejected']);
    assert.equal(await call('c'), 'C');
  });

  test('when more calls than the batch limit arrive, then they are split across commits and all answered', async () => {
    const sizes: number[] = [];
    const call = createBatcher(
      async (batch: readonly number[]) => {
        sizes.push(batch.length);
        return [...batch];
      },
      { maxBatch: 4 },
    );
    const results = await Promise.all(Array.from({ length: 10 }, (_, i) => call(i)));
    assert.deepEqual(results, Array.from({ length: 10 }, (_, i) => i));
    assert.deepEqual(sizes, [4, 4, 2]);
  });

  test('when up to maxInFlight runs may overlap, then calls arriving while one is in flight start their own run, and further ones wait for a free run', async () => {
    const batches: number[][] = [];
    const gates: (() => void)[] = [];
    const call = createBatcher(
      async (batch: readonly number[]) => {
        batches.push([...batch]);
        await new Promise<void>((resolve) => gates.push(resolve));
        return [...batch];
      },
      { maxInFlight: 2 },
    );
    const turn = () => new Promise((resolve) => setImmediate(resolve));
    const first = call(1);
    await turn();
    const second = call(2);
    await turn();
    // Two runs in flight, neither joined by a later call; the third waits.
    const third = [call(3), call(4)];
    await turn();
    assert.deepEqual(batches, [[1], [2]]);
    gates[0]?.();
    assert.equal(await first, 1);
    await turn();
    assert.deepEqual(batches, [[1], [2], [3, 4]]);
    gates[1]?.();
    gates[2]?.();
    assert.deepEqual(await Promise.all([second, ...third]), [2, 3, 4]);
  });
});

for (const backend of storageBackends()) {
  describe(`durable cancels under concurrency (${backend.name})`, () => {
    test('when 64 cancels of 16 orders race, then each pending order is cancelled exactly once, in fewer commits than cancels', async (t) => {
      const { storage } = await backend.freshDatabase(t);
      const services = testServices(storage);
      const account = await services.accounts.createAccount({ name: 'Race' });
      const ids: bigint[] = [];
      for (let i = 0; i < 16; i++) ids.push((await services.orderOperations.createOrder({ accountId: account.id, petId: 1n, quantity: 1 })).id);
      await services.orderOperations.shipOrder(ids[15] ?? 0n);

      // The real repository, watched: every call still reaches storage.
      const batchSizes: number[] = [];
      const watched: OrdersRepository = {
        ...storage.orders,
        changeStatusMany: (changes) => {
          batchSizes.push(changes.length);
          return storage.orders.changeStatusMany(changes);
        },
      };
      const { orders } = testServices({ ...storage, orders: watched });

      const attempts = Array.from({ length: 64 }, (_, i) => ({ id: ids[i % 16] ?? 0n }));
      const outcomes = await Promise.all(attempts.map(({ id }) => outcome(orders.cancelOrder(account.id, id))));

      for (const [index, id] of ids.entries()) {
        const forOrder = outcomes.filter((_, i) => attempts[i]?.id === id);
        if (index === 15) {
          assert.deepEqual(forOrder, ['order_already_shipped', 'order_already_shipped', 'order_already_shipped', 'order_already_shipped']);
        } else {
          assert.equal(forOrder.filter((o) => o === 'cancelled').length, 1, `order ${id} cancelled exactly once`);
          assert.equal(forOrder.filter((o) => o === 'order_not_found').length, 3);
        }
      }
      const stored = await storage.orders.listAll(account.id);
      assert.equal(stored.filter((o) => o.status === 'cancelled').length, 15);
      assert.equal(stored.find((o) => o.id === ids[15])?.status, 'shipped');
      assert.equal(batchSizes.reduce((a, b) => a + b, 0), 64);
      assert.ok(batchSizes.length < 64, `expected shared commits, got batches ${batchSizes.join(',')}`);
    });

    test('when two processes race to cancel the same orders, then each order is cancelled exactly once overall', async (t) => {
      const { config, storage } = await backend.freshDatabase(t);
      const other = openStorage(config);
      t.after(() => other.close());
      const here = testServices(storage);
      const there = testServices(other);
      const account = await here.accounts.createAccount({ name: 'Race' });
      const ids: bigint[] = [];
      for (let i = 0; i < 32; i++) ids.push((await here.orderOperations.createOrder({ accountId: account.id, petId: 1n, quantity: 1 })).id);

      const outcomes = await Promise.all(
        ids.flatMap((id) => [outcome(here.orders.cancelOrder(account.id, id)), outcome(there.orders.cancelOrder(account.id, id))]),
      );

      assert.equal(outcomes.filter((o) => o === 'cancelled').length, 32);
      assert.equal(outcomes.filter((o) => o === 'order_not_found').length, 32);
      assert.ok((await storage.orders.listAll(account.id)).every((o) => o.status === 'cancelled'));
    });

    test('when a batch mixes cancels of the same, missing, shipped and pending orders, then changeStatusMany decides each in order', async (t) => {
      const { storage } = await backend.freshDatabase(t);
      const services = testServices(storage);
      const account = await services.accounts.createAccount({ name: 'Mixed' });
      const pending = await services.orderOperations.createOrder({ accountId: account.id, petId: 1n, quantity: 1 });
      const shipped = await services.orderOperations.createOrder({ accountId: account.id, petId: 1n, quantity: 1 });
      await services.orderOperations.shipOrder(shipped.id);
      const at = new Date().toISOString();
      const change = (id: bigint) => ({ id, accountId: account.id, from: 'pending' as const, to: 'cancelled' as const, at });

      const results = await storage.orders.changeStatusMany([change(pending.id), change(pending.id), change(shipped.id), change(999n)]);

      assert.deepEqual(results, [{ changed: true }, { changed: false, current: 'cancelled' }, { changed: false, current: 'shipped' }, { changed: false }]);
    });
  });
}
