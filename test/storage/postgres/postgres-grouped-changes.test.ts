/**
 * What the storage contract cannot show on every backend: how a PostgreSQL
 * status-change group meets row locks held by other transactions, and what
 * it costs in round trips.
 */
import assert from 'node:assert/strict';
import { describe, test, type TestContext } from 'node:test';
import pg from 'pg';
import type { StatusChange } from '../../../src/orders/orders-repository.js';
import type { Storage } from '../../../src/storage/storage.js';
import { postgresBackend } from '../../support/storage.js';

const AT = '2026-11-22T00:00:00.000Z';

async function setUp(t: TestContext, count: number): Promise<{ url: string; storage: Storage; accountId: number }> {
  const { config, storage } = await postgresBackend.freshDatabase(t);
  if (config.kind !== 'postgres') throw new Error('this suite drives PostgreSQL');
  const account = await storage.accounts.create({ name: 'Main Street Pets', createdAt: AT });
  for (let id = 1n; id <= BigInt(count); id++) {
    await storage.orders.create({ id, accountId: account.id, complete: false, status: 'pending', createdAt: AT });
  }
  return { url: config.url, storage, accountId: account.id };
}

/** Another session holding order `id`'s row in an open transaction, having shipped it. */
async function shipInOpenTransaction(t: TestContext, url: string, id: bigint): Promise<pg.Client> {
  const other = new pg.Client({ connectionString: url });
  // Dropping the test database at teardown ends this connection from the server side.
  other.on('error', () => undefined);
  await other.connect();
  t.after(() => other.end().catch(() => undefined));
  await other.query('BEGIN');
  await other.query("UPDATE orders SET status = 'shipped' WHERE id = $1", [String(id)]);
  return other;
}

/** Resolves once some session of this database waits on a lock; fails if none does. */
async function someoneWaits(client: pg.Client): Promise<void> {
  const waiters = async () =>
    Number(
      (await client.query<{ n: string }>("SELECT count(*) AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'"))
        .rows[0]?.n,
    );
  for (let polls = 0; polls < 1000 && (await waiters()) === 0; polls++) await new Promise((resolve) => setTimeout(resolve, 10));
  assert.equal(await waiters(), 1, 'the group waits on the row the other transaction holds');
}

describe('PostgreSQL status-change groups', () => {
  const cancel = (accountId: number) => (id: bigint) => ({ id, accountId, from: 'pending', to: 'cancelled', at: AT }) as const;

  test('when another transaction is shipping an order of the group and commits, then the group waits and finds it shipped', async (t) => {
    const { url, storage, accountId } = await setUp(t, 3);
    const other = await shipInOpenTransaction(t, url, 2n);
    const group = storage.orders.changeStatusMany([1n, 2n, 3n].map(cancel(accountId)));
    await someoneWaits(other);
    await other.query('COMMIT');
    assert.deepEqual(await group, [{ changed: true }, { changed: false, current: 'shipped' }, { changed: true }]);
    assert.deepEqual((await storage.orders.listAll(accountId)).map((o) => o.status), ['cancelled', 'shipped', 'cancelled']);
  });

  test('when another transaction is shipping an order of the group and rolls back, then the group cancels it', async (t) => {
    const { url, storage, accountId } = await setUp(t, 3);
    const other = await shipInOpenTransaction(t, url, 2n);
    const group = storage.orders.changeStatusMany([3n, 2n, 1n].map(cancel(accountId)));
    await someoneWaits(other);
    await other.query('ROLLBACK');
    assert.deepEqual(await group, [{ changed: true }, { changed: true }, { changed: true }]);
    assert.deepEqual((await storage.orders.listAll(accountId)).map((o) => o.status), ['cancelled', 'cancelled', 'cancelled']);
  });

  test('when a group grows from 1 to 100 changes, then it still costs the same round trips (the changes, their events, in one transaction); naming an order again adds a statement', async (t) => {
    const { storage, accountId } = await setUp(t, 200);
    // Every query the real adapter sends goes through a pg.Client, pooled or not.
    const query = pg.Client.prototype.query;
    let sent = 0;
    pg.Client.prototype.query = function (this: pg.Client, ...args: Parameters<typeof query>) {
      sent++;
      return Reflect.apply(query, this, args) as ReturnType<typeof query>;
    } as typeof query;
    t.after(() => {
      pg.Client.prototype.query = query;
    });
    const roundTrips = async (changes: StatusChange[]) => {
      sent = 0;
      await storage.orders.changeStatusMany(changes);
      return sent;
    };
    const ids = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => BigInt(from + i));

    // BEGIN, one statement per round (as many as the times the most named order is named), the events (the outbox), COMMIT.
    assert.deepEqual([await roundTrips(ids(1, 1).map(cancel(accountId))), await roundTrips(ids(2, 11).map(cancel(accountId))), await roundTrips(ids(12, 111).map(cancel(accountId)))], [4, 4, 4]);
    assert.equal(await roundTrips([...ids(112, 200), 150n, 112n].map(cancel(accountId))), 5);
    // Nothing changed (order 1 is cancelled already): no events to write.
    assert.equal(await roundTrips([1n, 1n, 1n].map(cancel(accountId))), 5);
    assert.equal((await storage.orders.listAll(accountId)).filter((o) => o.status === 'cancelled').length, 200);
  });
});
