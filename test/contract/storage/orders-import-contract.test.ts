/**
 * The import part of the orders storage contract (OrdersRepository.importOrders):
 * all or nothing, batches pulled one at a time, a refused order named by its
 * source line. The same cases on every adapter.
 */
import assert from 'node:assert/strict';
import { describe, test, type TestContext } from 'node:test';
import { AppError } from '../../../src/errors/errors.js';
import { ImportRejectedError, type ImportBatch, type NewOrder } from '../../../src/orders/orders-repository.js';
import { INT64_MAX } from '../../../src/shared/int64.js';
import type { Storage } from '../../../src/storage/storage.js';
import type { ContractCoverage } from '../../support/storage-contract.js';
import { storageBackends } from '../../support/storage.js';

export const CONTRACT_COVERS = {
  orders: ['importOrders'],
} as const satisfies ContractCoverage;

const AT = '2026-11-22T10:00:00.000Z';

function pending(accountId: number, fields: Partial<NewOrder> = {}): NewOrder {
  return { accountId, complete: false, status: 'pending', createdAt: AT, ...fields };
}

/** Orders with ids from..to (inclusive) for the account. */
function range(accountId: number, from: number, to: number): NewOrder[] {
  return Array.from({ length: to - from + 1 }, (_, i) => pending(accountId, { id: BigInt(from + i), petId: BigInt(from + i), quantity: 1 }));
}

/**
 * A source that records how far it was read and whether it was closed, so
 * that a test can tell that batches are pulled one at a time and that an
 * aborted import stops reading.
 */
function trackedSource(batches: readonly (readonly NewOrder[])[]) {
  const state = { pulled: 0, closed: false };
  async function* read() {
    try {
      for (const batch of batches) {
        state.pulled++;
        yield batch;
      }
    } finally {
      state.closed = true;
    }
  }
  return { source: read(), state };
}

async function* from(batches: readonly (readonly NewOrder[])[]): AsyncGenerator<readonly NewOrder[]> {
  yield* batches;
}

/**
 * The source's line of the order at `position` (0-based across batches):
 * neither the position nor position + 1, so a test passes only when the
 * adapter reports the line its batch carried.
 */
const lineAt = (position: number): number => 10 + 3 * position;

/** Batches of orders as the import source hands them to storage: each with its orders' lines. */
async function* numbered(source: AsyncIterable<readonly NewOrder[]> | Iterable<readonly NewOrder[]>): AsyncGenerator<ImportBatch> {
  let position = 0;
  for await (const orders of source) {
    yield { orders, lines: orders.map((_, i) => lineAt(position + i)) };
    position += orders.length;
  }
}

for (const backend of storageBackends({ postgresDirect: true })) {
  describe(`orders import storage contract: ${backend.name}`, () => {
    async function setUp(t: TestContext): Promise<{ storage: Storage; accountId: number; otherId: number }> {
      const { storage } = await backend.freshDatabase(t);
      const { id: accountId } = await storage.accounts.create({ name: 'Main Street Pets', createdAt: AT });
      const { id: otherId } = await storage.accounts.create({ name: 'Harbour Pets', createdAt: AT });
      return { storage, accountId, otherId };
    }

    describe('orders.importOrders', () => {
      test('when every order is accepted, then all are stored exactly as given, ids chosen for those without, and the count is returned', async (t) => {
        const { storage, accountId, otherId } = await setUp(t);
        const full = pending(accountId, { id: 10n, petId: 2n ** 53n + 1n, quantity: 3, shipDate: '2026-12-01T10:00:00.250Z', complete: true, status: 'shipped' });
        const result = await storage.orders.importOrders(numbered(
          from([[full, pending(accountId, { id: 12n })], [], [pending(otherId, { id: 11n, status: 'cancelled' }), pending(accountId, { petId: 5n })]]),
        ));
        assert.deepEqual(result, { imported: 4 });
        const mine = await storage.orders.listAll(accountId);
        assert.deepEqual(mine.slice(0, 1), [{ id: 10n, accountId, petId: 2n ** 53n + 1n, quantity: 3, shipDate: '2026-12-01T10:00:00.250Z', complete: true, status: 'shipped' }]);
        assert.equal(mine.length, 3);
        const chosen = mine.find((o) => o.petId === 5n);
        assert.ok(chosen !== undefined && ![10n, 11n, 12n].includes(chosen.id), `chosen id ${String(chosen?.id)}`);
        assert.deepEqual(await storage.orders.listAll(otherId), [{ id: 11n, accountId: otherId, complete: false, status: 'cancelled' }]);
      });

      test('when orders without ids come among orders with ids, then each takes the largest id before it plus one, in file order, across batches', async (t) => {
        const { storage, accountId, otherId } = await setUp(t);
        const auto = () => pending(accountId);
        // An empty table: the first id chosen is 1.
        assert.deepEqual(await storage.orders.importOrders(numbered(from([[auto(), auto()]]))), { imported: 2 });
        // Any account's orders count; a given id, larger or smaller, counts from where it stands in the file.
        await storage.orders.create(pending(otherId, { id: 20n }));
        const result = await storage.orders.importOrders(numbered(from([[auto(), pending(accountId, { id: 50n }), auto()], [pending(accountId, { id: 10n }), auto()], [auto()]])));
        assert.deepEqual(result, { imported: 6 });
        assert.deepEqual((await storage.orders.listAll(accountId)).map((o) => o.id), [1n, 2n, 10n, 21n, 50n, 51n, 52n, 53n]);
        // Negative ids only: the largest plus one is still the rule.
        const { storage: negative, accountId: negativeAccount } = await setUp(t);
        await negative.orders.create(pending(negativeAccount, { id: -5n }));
        await negative.orders.importOrders(numbered(from([[pending(negativeAccount), pending(negativeAccount)]])));
        assert.deepEqual((await negative.orders.listAll(negativeAccount)).map((o) => o.id), [-5n, -4n, -3n]);
      });

      test('when the largest id is 2^63-1, then orders without ids imported after it each still get an unused one', async (t) => {
        const { storage, accountId } = await setUp(t);
        await storage.orders.create(pending(accountId, { id: INT64_MAX }));
        assert.deepEqual(await storage.orders.importOrders(numbered(from([[pending(accountId), pending(accountId)], [pending(accountId)]]))), { imported: 3 });
        const ids = (await storage.orders.listAll(accountId)).map((o) => o.id);
        assert.equal(new Set(ids).size, 4);
        assert.equal(ids.filter((id) => id === INT64_MAX).length, 1);
      });

      test('when the source is empty or yields only empty batches, then nothing is imported and nothing changes', async (t) => {
        const { storage, accountId } = await setUp(t);
        assert.deepEqual(await storage.orders.importOrders(numbered(from([]))), { imported: 0 });
        assert.deepEqual(await storage.orders.importOrders(numbered(from([[], []]))), { imported: 0 });
        assert.deepEqual(await storage.orders.listAll(accountId), []);
        assert.equal(await storage.orders.ordersVersion(accountId), 0n);
      });

      test('when batches are larger than the multi-row statements the adapters write, then every order lands once', async (t) => {
        const { storage, accountId } = await setUp(t);
        // 2,573 orders in batches of 1,234: whole chunks and remainders on either adapter.
        const orders = range(accountId, 1, 2573);
        const batches = [orders.slice(0, 1234), orders.slice(1234, 2468), orders.slice(2468)];
        assert.deepEqual(await storage.orders.importOrders(numbered(from(batches))), { imported: 2573 });
        const stored = await storage.orders.listAll(accountId);
        assert.equal(stored.length, 2573);
        assert.deepEqual(stored.map((o) => o.id), orders.map((o) => o.id));
        assert.ok(stored.every((o) => o.petId === o.id && o.quantity === 1));
      });

      test('when the import is still running, then none of its orders is visible; all are once it returns', async (t) => {
        const { storage, accountId } = await setUp(t);
        const before = await storage.orders.ordersVersion(accountId);
        let resume = () => {};
        const paused = new Promise<void>((resolve) => (resume = resolve));
        let firstBatchTaken = () => {};
        const taken = new Promise<void>((resolve) => (firstBatchTaken = resolve));
        async function* source() {
          yield range(accountId, 1, 300);
          // Asked for the second batch: the first one has been written inside the import.
          firstBatchTaken();
          await paused;
          yield range(accountId, 301, 400);
        }
        const running = storage.orders.importOrders(numbered(source()));
        await taken;
        assert.deepEqual(await storage.orders.listAll(accountId), []);
        assert.equal(await storage.orders.findById(1n), undefined);
        assert.deepEqual(await storage.orders.listPage({ accountId, filter: {}, limit: 10 }), []);
        assert.equal(await storage.orders.ordersVersion(accountId), before);
        resume();
        assert.deepEqual(await running, { imported: 400 });
        assert.equal((await storage.orders.listAll(accountId)).length, 400);
      });

      test('when an order of a later batch is refused, then nothing of the import is committed, the source is not read to its end and is closed', async (t) => {
        const { storage, accountId, otherId } = await setUp(t);
        await storage.orders.create(pending(otherId, { id: 2500n }));
        const before = await storage.orders.ordersVersion(accountId);
        // 40 batches of 1,000; the third holds the taken id. An adapter may
        // gather batches into larger statements (PostgreSQL: runs of 10,000
        // orders) and gather the next while one is written, so it reads at
        // most two such runs past the refused order's.
        const { source, state } = trackedSource(Array.from({ length: 40 }, (_, i) => range(accountId, i * 1000 + 1, (i + 1) * 1000)));
        await assert.rejects(storage.orders.importOrders(numbered(source)), (error: unknown) => error instanceof ImportRejectedError && error.line === lineAt(2499));
        assert.deepEqual(await storage.orders.listAll(accountId), []);
        assert.deepEqual((await storage.orders.listAll(otherId)).map((o) => o.id), [2500n]);
        assert.equal(await storage.orders.ordersVersion(accountId), before);
        assert.ok(state.pulled >= 3 && state.pulled <= 22, `pulled ${state.pulled} of 40 batches`);
        assert.equal(state.closed, true);

        // Nothing was left locked or half-open: writes and a new import go through.
        await storage.orders.create(pending(accountId, { id: 1n }));
        assert.deepEqual(await storage.orders.importOrders(numbered(from([range(accountId, 2, 2499)]))), { imported: 2498 });
        assert.equal((await storage.orders.listAll(accountId)).length, 2499);
      });

      test('when the source throws after earlier batches were written, then the import rejects with that error and nothing is committed', async (t) => {
        const { storage, accountId } = await setUp(t);
        const failure = new Error('the file could not be read');
        async function* source() {
          yield range(accountId, 1, 700);
          yield range(accountId, 701, 1400);
          throw failure;
        }
        await assert.rejects(storage.orders.importOrders(numbered(source())), (error: unknown) => error === failure);
        assert.deepEqual(await storage.orders.listAll(accountId), []);
        assert.equal(await storage.orders.ordersVersion(accountId), 0n);
        assert.deepEqual(await storage.orders.importOrders(numbered(from([range(accountId, 1, 3)]))), { imported: 3 });
      });

      // The source throws after the refused order was handed over: in a run an
      // adapter may still be writing (PostgreSQL: runs of 10,000 orders), or in
      // one it is still gathering (3,000 orders, none written yet).
      for (const { where, batches, taken } of [
        { where: 'in a run being written', batches: 15, taken: 2500 },
        { where: 'in a run still being gathered', batches: 3, taken: 1500 },
      ]) {
        test(`when an order is refused ${where} and the source then throws, then the import rejects with the refusal, the earlier of the two`, async (t) => {
          const { storage, accountId, otherId } = await setUp(t);
          await storage.orders.create(pending(otherId, { id: BigInt(taken) }));
          async function* source() {
            for (let i = 0; i < batches; i++) yield range(accountId, i * 1000 + 1, (i + 1) * 1000);
            throw new Error('the file could not be read');
          }
          await assert.rejects(storage.orders.importOrders(numbered(source())), (error: unknown) => error instanceof ImportRejectedError && error.line === lineAt(taken - 1));
          assert.deepEqual(await storage.orders.listAll(accountId), []);
        });
      }

      /*
       * ── REJECTION REPORT ────────────────────────────────────────────────
       * Every assertion on how a refused order is reported lives in this one
       * test: ImportRejectedError, the source line its batch carried for the
       * refused order (the table names the order by its 0-based position
       * across batches), and its reason (the cases: a taken id, an id
       * repeated within the import, an unknown account; in a small batch,
       * in a large one, first and last).
       */
      test('REJECTION REPORT: when an order is refused, then ImportRejectedError gives the line its batch carried for it and the reason', async (t) => {
        const { storage, accountId, otherId } = await setUp(t);
        await storage.orders.create(pending(otherId, { id: 5000n }));

        async function rejection(batches: readonly (readonly NewOrder[])[]): Promise<{ line: number; code: string }> {
          try {
            await storage.orders.importOrders(numbered(from(batches)));
          } catch (error) {
            assert.ok(error instanceof ImportRejectedError, `expected an ImportRejectedError, got ${String(error)}`);
            assert.ok(error.reason instanceof AppError, `expected an AppError reason, got ${String(error.reason)}`);
            assert.equal(error.message, error.reason.message);
            return { line: error.line, code: error.reason.code };
          }
          assert.fail('the import was accepted');
        }

        const taken = pending(accountId, { id: 5000n });
        const stranger = pending(999_999, { id: 6000n });
        const cases: [string, (readonly NewOrder[])[], { position: number; code: string }][] = [
          ['a taken id, first of all', [[taken], range(accountId, 1, 5)], { position: 0, code: 'order_id_taken' }],
          ['a taken id deep in a large batch', [range(accountId, 1, 3), [...range(accountId, 10, 1109), taken, ...range(accountId, 1110, 1200)]], { position: 1103, code: 'order_id_taken' }],
          ['a taken id in the middle of the second run of 10,000 (staged by COPY)', [range(accountId, 10_001, 20_000), [...range(accountId, 20_001, 24_999), taken, ...range(accountId, 25_000, 26_000)]], { position: 14_999, code: 'order_id_taken' }],
          ['a taken id, last of the last batch', [range(accountId, 1, 3), range(accountId, 4, 6), [taken]], { position: 6, code: 'order_id_taken' }],
          ['an id repeated in a later batch', [range(accountId, 1, 40), range(accountId, 41, 80), range(accountId, 30, 31)], { position: 80, code: 'order_id_taken' }],
          ['an id repeated within one batch', [[...range(accountId, 1, 60), ...range(accountId, 60, 61)]], { position: 60, code: 'order_id_taken' }],
          ['an unknown account', [range(accountId, 1, 70), [...range(accountId, 71, 72), stranger]], { position: 72, code: 'account_not_found' }],
          ['an id an earlier order without one was given, in a later batch', [[pending(accountId)], [pending(accountId, { id: 5001n })]], { position: 1, code: 'order_id_taken' }],
          ['an id an earlier order without one was given, in the same batch', [[pending(accountId), pending(accountId), pending(accountId, { id: 5002n })]], { position: 2, code: 'order_id_taken' }],
          ['an unknown account among orders without ids', [[pending(accountId), pending(accountId)], [pending(accountId), pending(999_999), pending(accountId)]], { position: 3, code: 'account_not_found' }],
        ];
        for (const [name, batches, expected] of cases) {
          assert.deepEqual(await rejection(batches), { line: lineAt(expected.position), code: expected.code }, name);
          assert.deepEqual(await storage.orders.listAll(accountId), [], `${name}: nothing committed`);
        }
      });
    });
  });
}
