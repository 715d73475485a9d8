/**
 * The feed pages by position, so positions must commit in increasing order
 * per account: a reader that resumes after the last position it saw must not
 * miss an event that commits later with a lower position (what a sequence or
 * identity would allow). Two transactions are interleaved on PostgreSQL
 * through insertEvents, the one function every write path writes events with.
 */
import assert from 'node:assert/strict';
import { test, type TestContext } from 'node:test';
import pg from 'pg';
import { orderEvent } from '../../../src/events/event-records.js';
import { insertEvents } from '../../../src/storage/postgres/postgres-events.js';
import type { Sql } from '../../../src/storage/postgres/postgres-sql.js';
import type { Storage } from '../../../src/storage/storage.js';
import { postgresBackend } from '../../support/storage.js';

const AT = '2026-11-22T00:00:00.000Z';

async function openClient(t: TestContext, url: string): Promise<{ client: pg.Client; sql: Sql }> {
  const client = new pg.Client({ connectionString: url });
  // Dropping the test database at teardown ends this connection from the server side.
  client.on('error', () => undefined);
  await client.connect();
  t.after(() => client.end().catch(() => undefined));
  const sql: Sql = async (text, values) => (await client.query(text, values === undefined ? undefined : [...values])).rows;
  return { client, sql };
}

async function setUp(t: TestContext) {
  const { config, storage } = await postgresBackend.freshDatabase(t);
  if (config.kind !== 'postgres') throw new Error('this test drives PostgreSQL');
  const account = await storage.accounts.create({ name: 'Main Street Pets', createdAt: AT });
  const event = (id: bigint) => orderEvent('order.cancelled', { id, accountId: account.id, complete: false, status: 'cancelled' }, AT);
  /** A reader of the feed that resumes after the last position it saw. */
  const reader = (on: Storage) => {
    let after = 0n;
    return async () => {
      const page = await on.events.listPage({ accountId: account.id, filter: {}, afterPosition: after, limit: 100 });
      after = page.at(-1)?.position ?? after;
      return page.map((e) => e.subject);
    };
  };
  return { url: config.url, storage, event, reader };
}

test('when the transaction that started first commits last, then its event gets the later position and a resuming reader still sees it', async (t) => {
  const { url, storage, event, reader } = await setUp(t);
  const first = await openClient(t, url);
  const second = await openClient(t, url);
  const read = reader(storage);

  // The first transaction starts, and takes its transaction id, before the second.
  await first.client.query('BEGIN');
  await first.client.query('SELECT txid_current()');
  await second.client.query('BEGIN');
  await insertEvents(second.sql, [event(2n)]);
  await second.client.query('COMMIT');
  assert.deepEqual(await read(), ['order:2']);

  await insertEvents(first.sql, [event(1n)]);
  await first.client.query('COMMIT');
  assert.deepEqual(await read(), ['order:1'], 'the late commit comes after the cursor, not before it');
  assert.deepEqual(await read(), []);
});

test('when a second transaction writes events of the account while the first holds its position, then it waits, and a reader between them misses nothing', async (t) => {
  const { url, storage, event, reader } = await setUp(t);
  const first = await openClient(t, url);
  const second = await openClient(t, url);
  const probe = await openClient(t, url);
  const read = reader(storage);

  const secondPid = (await second.sql<{ pid: number }>('SELECT pg_backend_pid() AS pid'))[0]?.pid;
  await first.client.query('BEGIN');
  await insertEvents(first.sql, [event(1n)]);
  await second.client.query('BEGIN');
  let secondWrote = false;
  const secondWrite = insertEvents(second.sql, [event(2n), event(3n)]).then(() => (secondWrote = true));
  // The second waits on the account's row lock (the first has not committed).
  const waiting = async () =>
    Number(
      (await probe.client.query<{ n: string }>('SELECT count(*) AS n FROM pg_stat_activity WHERE pid = $1 AND wait_event_type = $2', [secondPid, 'Lock'])).rows[0]?.n,
    );
  for (let polls = 0; polls < 1000 && (await waiting()) === 0; polls++) await new Promise((resolve) => setTimeout(resolve, 10));
  assert.equal(await waiting(), 1, 'the second transaction waits for the first');
  assert.equal(secondWrote, false);
  assert.deepEqual(await read(), [], 'nothing is committed yet');

  await first.client.query('COMMIT');
  await secondWrite;
  assert.deepEqual(await read(), ['order:1'], 'the first is visible; the second is not yet committed');
  await second.client.query('COMMIT');
  assert.deepEqual(await read(), ['order:2', 'order:3']);
  const positions = (await storage.events.listPage({ accountId: (await storage.accounts.list())[0]?.id ?? 0, filter: {}, afterPosition: 0n, limit: 10 })).map((e) => e.position);
  assert.deepEqual(positions, [1n, 2n, 3n]);
});
