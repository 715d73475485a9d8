import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { AppError } from '../../../src/errors/errors.js';
import { storageBackends } from '../../support/storage.js';
import { testServices } from '../../support/container.js';

/** The lines in groups of 7, so that groups straddle the import's batches. */
async function* linesOf(lines: readonly string[]): AsyncGenerator<string[]> {
  for (let start = 0; start < lines.length; start += 7) yield lines.slice(start, start + 7);
}

const order = (id: number) => `{"id":${id},"petId":${9007199254740993n + BigInt(id)},"quantity":1,"shipDate":"2026-12-01T10:00:00Z"}`;

for (const backend of storageBackends()) {
  describe(`bulk import through storage (${backend.name})`, () => {
    test('when every line is valid, then all orders are committed with exact int64 digits, with and without ids', async (t) => {
      const { storage } = await backend.freshDatabase(t);
      const services = testServices(storage);
      const account = await services.accounts.createAccount({ name: 'Import' });
      const lines = [...Array.from({ length: 2100 }, (_, i) => order(i + 1)), '{"petId":5,"quantity":2}', ''];

      const result = await services.orderOperations.importOrders(account.id, linesOf(lines));

      assert.deepEqual(result, { imported: 2101 });
      const stored = await storage.orders.listAll(account.id);
      assert.equal(stored.length, 2101);
      assert.equal(stored.find((o) => o.id === 2000n)?.petId, 9007199254742993n);
      assert.ok(stored.some((o) => o.petId === 5n && o.id > 2100n));
    });

    test('when an order id in the third batch is taken, then the error names its line and nothing of the import is committed', async (t) => {
      const { storage } = await backend.freshDatabase(t);
      const services = testServices(storage);
      const account = await services.accounts.createAccount({ name: 'Import' });
      await services.orderOperations.createOrder({ accountId: account.id, id: 2500n, petId: 1n, quantity: 1 });
      const lines = Array.from({ length: 3000 }, (_, i) => order(i + 1));

      await assert.rejects(services.orderOperations.importOrders(account.id, linesOf(lines)), (error: unknown) => {
        assert.ok(error instanceof AppError);
        assert.equal(error.code, 'order_id_taken');
        assert.equal(error.message, 'Line 2500: Order id 2500 is already taken.');
        return true;
      });
      assert.deepEqual((await storage.orders.listAll(account.id)).map((o) => o.id), [2500n]);
    });

    test('when a line is malformed after earlier batches were written, then nothing is committed', async (t) => {
      const { storage } = await backend.freshDatabase(t);
      const services = testServices(storage);
      const account = await services.accounts.createAccount({ name: 'Import' });
      const lines = [...Array.from({ length: 1500 }, (_, i) => order(i + 1)), '{"petId":'];

      await assert.rejects(services.orderOperations.importOrders(account.id, linesOf(lines)), /Line 1501: not valid JSON/);
      assert.deepEqual(await storage.orders.listAll(account.id), []);

      // Far past the batches parsed ahead of storage, after blank lines that still count.
      const later = [...Array.from({ length: 7400 }, (_, i) => (i % 100 === 99 ? '  ' : order(i + 1))), '{"petId":1,"quantity":1,"status":"shipped"}'];
      await assert.rejects(services.orderOperations.importOrders(account.id, linesOf(later)), /^ValidationError: Line 7401: unknown field "status"/);
      assert.deepEqual(await storage.orders.listAll(account.id), []);
    });
  });
}
