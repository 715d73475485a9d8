/**
 * What the import storage contract cannot show on every backend: what a
 * PostgreSQL import costs in statements as it grows, and how it meets a
 * concurrent create that takes an id it was about to use.
 */
import assert from 'node:assert/strict';
import { describe, test, type TestContext } from 'node:test';
import pg from 'pg';
import type { ImportBatch, NewOrder } from '../../../src/orders/orders-repository.js';
import { postgresBackend } from '../../support/storage.js';

const AT = '2026-11-22T00:00:00.000Z';

const pending = (accountId: number, id?: bigint): NewOrder => ({ id, accountId, petId: 7n, quantity: 1, complete: false, status: 'pending', createdAt: AT });

/** `sizes.length` batches of orders without ids, numbered from line 1. */
async function* withoutIds(accountId: number, sizes: readonly number[]): AsyncGenerator<ImportBatch> {
  let line = 1;
  for (const size of sizes) {
    const orders = Array.from({ length: size }, () => pending(accountId));
    yield { orders, lines: orders.map(() => line++) };
  }
}

/** Counts the statements the adapter sends: every query goes through a pg.Client, pooled or not. */
function countStatements(t: TestContext): { sent: number } {
  const counter = { sent: 0 };
  const query = pg.Client.prototype.query;
  pg.Client.prototype.query = function (this: pg.Client, ...args: Parameters<typeof query>) {
    counter.sent++;
    return Reflect.apply(query, this, args) as ReturnType<typeof query>;
  } as typeof query;
  t.after(() => {
    pg.Client.prototype.query = query;
  });
  return counter;
}

describe('PostgreSQL import', () => {
  test('when an import of orders without ids grows from 10 to 3,000 orders per batch, then its statements and version bumps grow with the batches, not the orders', async (t) => {
    const { storage } = await postgresBackend.freshDatabase(t);
    const { id: accountId } = await storage.accounts.create({ name: 'Main Street Pets', createdAt: AT });
    await storage.orders.create(pending(accountId, 5n));
    const counter = countStatements(t);
    const cost = async (sizes: readonly number[]) => {
      const version = await storage.orders.ordersVersion(accountId);
      counter.sent = 0;
      assert.deepEqual(await storage.orders.importOrders(withoutIds(accountId, sizes)), { imported: sizes.reduce((a, b) => a + b, 0) });
      const statements = counter.sent;
      return { statements, bumps: Number((await storage.orders.ordersVersion(accountId)) - version) };
    };
    const small = await cost([10]);
    assert.deepEqual(await cost([3000]), small);
    const three = await cost([10, 10, 10]);
    assert.deepEqual(await cost([1000, 3000, 1000]), three);
    assert.ok(three.bumps <= 3, `${three.bumps} version bumps for 3 batches`);
    // Per run: the largest id, TRUNCATE and COPY of the staging table, the orders, their events (one statement each, whatever its size).
    assert.ok(three.statements - small.statements <= 2 * 3, `${three.statements} statements for 3 batches, ${small.statements} for 1`);
    // Every id chosen once, in file order after the largest before the import.
    const ids = (await storage.orders.listAll(accountId)).map((o) => o.id);
    assert.deepEqual(ids, Array.from({ length: ids.length }, (_, i) => 5n + BigInt(i)));
    assert.equal(ids.length, 1 + 10 + 3000 + 30 + 5000);
  });

  test('when an import writes events of an account with an enabled webhook endpoint, then its commit tells the engine of this process once; an import into an account without one tells nothing', async (t) => {
    const { storage } = await postgresBackend.freshDatabase(t);
    const { id: accountId } = await storage.accounts.create({ name: 'Main Street Pets', createdAt: AT });
    const { id: quietId } = await storage.accounts.create({ name: 'Harbour Pets', createdAt: AT });
    const made = await storage.webhooks.createEndpoint(
      { id: `we_${'1'.padStart(32, '0')}`, accountId, url: 'https://hooks.example.com/1', eventTypes: ['order.created'], description: null, rateLimit: null, sealedSecret: 'sealed', createdAt: AT },
      { maxPerAccount: 10 },
    );
    assert.ok(typeof made === 'object');
    let announced = 0;
    t.after(storage.onDeliveriesQueued(() => announced++));
    await storage.orders.importOrders(withoutIds(quietId, [3, 2]));
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(announced, 0);
    await storage.orders.importOrders(withoutIds(accountId, [3, 2]));
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(announced, 1);
  });

  test('when a concurrent create holds the id an import is about to give, then the import waits, and after its commit places its orders after that id', async (t) => {
    const { config, storage } = await postgresBackend.freshDatabase(t);
    if (config.kind !== 'postgres') throw new Error('this suite drives PostgreSQL');
    const { id: accountId } = await storage.accounts.create({ name: 'Main Street Pets', createdAt: AT });
    const other = new pg.Client({ connectionString: config.url });
    // Dropping the test database at teardown ends this connection from the server side.
    other.on('error', () => undefined);
    await other.connect();
    t.after(() => other.end().catch(() => undefined));
    await other.query('BEGIN');
    await other.query("INSERT INTO orders (id, account_id, complete, status, created_at, updated_at) VALUES (1, $1, false, 'pending', $2, $2)", [accountId, AT]);

    const running = storage.orders.importOrders(withoutIds(accountId, [3, 2]));
    for (let polls = 0; polls < 1000; polls++) {
      const { rows } = await other.query<{ n: string }>("SELECT count(*) AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'");
      if (rows[0]?.n !== '0') break;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    await other.query('COMMIT');

    assert.deepEqual(await running, { imported: 5 });
    assert.deepEqual((await storage.orders.listAll(accountId)).map((o) => o.id), [1n, 2n, 3n, 4n, 5n, 6n]);
  });
});
