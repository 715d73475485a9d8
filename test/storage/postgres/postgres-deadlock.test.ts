import assert from 'node:assert/strict';
import { test } from 'node:test';
import pg from 'pg';
import { isUnavailable } from '../../../src/storage/postgres/postgres-errors.js';
import { postgresBackend } from '../../support/storage.js';

const AT = '2026-11-22T00:00:00.000Z';

test('when a status-change group deadlocks with another transaction (PostgreSQL), then it is run again and every change is decided once', async (t) => {
  const { config, storage } = await postgresBackend.freshDatabase(t);
  if (config.kind !== 'postgres') throw new Error('this test drives PostgreSQL');
  const x = await storage.accounts.create({ name: 'X', createdAt: AT });
  const y = await storage.accounts.create({ name: 'Y', createdAt: AT });
  const inX = await storage.orders.create({ id: 1n, accountId: x.id, petId: 1n, complete: false, status: 'pending', createdAt: AT });
  const inY = await storage.orders.create({ id: 2n, accountId: y.id, petId: 1n, complete: false, status: 'pending', createdAt: AT });

  // Another transaction holds account Y's row, so the group (which locks
  // orders 1 and 2, then accounts X and Y, each in id order) waits on Y
  // while holding X; that transaction then asks for X: a deadlock.
  const other = new pg.Client({ connectionString: config.url });
  // Dropping the test database at teardown ends this connection from the server side.
  other.on('error', () => undefined);
  await other.connect();
  await other.query('BEGIN');
  await other.query('SELECT id FROM accounts WHERE id = $1 FOR UPDATE', [y.id]);

  const group = storage.orders.changeStatusMany([
    { id: inX.id, accountId: x.id, from: 'pending', to: 'cancelled', at: AT },
    { id: inY.id, accountId: y.id, from: 'pending', to: 'cancelled', at: AT },
  ]);
  // Wait until the group waits on Y, then check that it holds X meanwhile
  // (a lock it holds refuses NOWAIT): otherwise there would be no deadlock to recover from.
  const waiters = async () =>
    Number(
      (await other.query<{ n: string }>("SELECT count(*) AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'"))
        .rows[0]?.n,
    );
  for (let polls = 0; polls < 1000 && (await waiters()) === 0; polls++) await new Promise((resolve) => setTimeout(resolve, 10));
  assert.equal(await waiters(), 1, 'the group waits on account Y');
  const probe = new pg.Client({ connectionString: config.url });
  probe.on('error', () => undefined);
  await probe.connect();
  await assert.rejects(probe.query('SELECT id FROM accounts WHERE id = $1 FOR UPDATE NOWAIT', [x.id]), { code: '55P03' });
  await probe.end();
  let otherOutcome = 'committed';
  try {
    await other.query('SELECT id FROM accounts WHERE id = $1 FOR UPDATE', [x.id]);
    await other.query('COMMIT');
  } catch (error) {
    otherOutcome = `aborted (${(error as { code?: string }).code ?? '?'})`;
    await other.query('ROLLBACK');
  }

  assert.deepEqual(await group, [{ changed: true }, { changed: true }]);
  await other.end();
  const stored = await storage.orders.listAll(x.id);
  assert.equal(stored[0]?.status, 'cancelled');
  assert.equal((await storage.orders.listAll(y.id))[0]?.status, 'cancelled');
  // Whichever side PostgreSQL chose to abort, the group's changes happened exactly once.
  assert.match(otherOutcome, /^(committed|aborted \(40P01\))$/);
});

test('when PostgreSQL reports a deadlock or serialization failure, then it is retryable (503), not an internal error', () => {
  for (const code of ['40P01', '40001']) assert.equal(isUnavailable(Object.assign(new Error('conflict'), { code })), true);
  assert.equal(isUnavailable(Object.assign(new Error('unique'), { code: '23505' })), false);
});
