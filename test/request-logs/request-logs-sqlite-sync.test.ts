/**
 * SQLite writes each batch of request logs without waiting for the disk
 * (synchronous=NORMAL for that commit), and every other write keeps the
 * configured synchronous=FULL: the setting is restored after each batch,
 * when it fails too.
 */
import assert from 'node:assert/strict';
import { describe, test, type TestContext } from 'node:test';
import { Database } from '../../src/storage/sqlite/sqlite-driver.js';
import { createSqliteRequestLogsRepository } from '../../src/storage/sqlite/sqlite-request-logs-repository.js';
import type { NewRequestLog } from '../../src/request-logs/request-logs-repository.js';
import type { SqliteSynchronous } from '../../src/config/config.js';
import { sqliteBackend } from '../support/storage.js';
import { storedRequests } from '../../src/request-logs/stored-requests.js';

const FULL = 2;
const NORMAL = 1;

async function open(t: TestContext, synchronous: SqliteSynchronous) {
  const { config, storage } = await sqliteBackend.freshDatabase(t);
  assert.equal(config.kind, 'sqlite');
  const account = await storage.accounts.create({ name: 'Main Street Pets', createdAt: '2026-11-28T10:00:00.000Z' });
  const other = await storage.accounts.create({ name: 'Harbour Pets', createdAt: '2026-11-28T10:00:00.000Z' });
  const db = new Database(config.path);
  t.after(() => db.close());
  db.defaultSafeIntegers(true);
  db.pragma(`synchronous = ${synchronous}`);
  db.pragma('foreign_keys = ON');
  // What each insert of a batch (a row per account: the entries are packed) ran with, seen from inside its transaction.
  db.exec(`CREATE TEMP TABLE seen (synchronous INTEGER);
    CREATE TEMP TRIGGER watch AFTER INSERT ON request_log_batches BEGIN INSERT INTO seen SELECT synchronous FROM pragma_synchronous; END`);
  const seen = () => (db.prepare('SELECT synchronous FROM seen').pluck().all() as bigint[]).map(Number);
  return { db, seen, accountId: account.id, otherId: other.id, repository: createSqliteRequestLogsRepository(db, synchronous) };
}

const entry = (accountId: number): NewRequestLog => ({ accountId, at: '2026-11-28T10:00:01.000Z', method: 'GET', path: '/v1/store/orders', status: 200, durationMs: 0.5, requestId: 'r1' });

describe('request logs on SQLite: the batch commit and the synchronous setting', () => {
  test('when the database runs with synchronous=FULL, then a batch is written with NORMAL and FULL is back afterwards, after a failed batch too', async (t) => {
    const { db, seen, accountId, otherId, repository } = await open(t, 'full');
    await repository.append(storedRequests([entry(accountId), entry(otherId), entry(accountId)]), []);
    assert.deepEqual(seen(), [NORMAL, NORMAL]);
    assert.equal(Number(db.pragma('synchronous', { simple: true })), FULL);

    await assert.rejects(repository.append(storedRequests([entry(999_999)]), []), /account/);
    assert.equal(Number(db.pragma('synchronous', { simple: true })), FULL);
  });

  test('when the database runs with synchronous=NORMAL, then batches are written so and it stays NORMAL', async (t) => {
    const { db, seen, accountId, repository } = await open(t, 'normal');
    await repository.append(storedRequests([entry(accountId)]), []);
    assert.deepEqual(seen(), [NORMAL]);
    assert.equal(Number(db.pragma('synchronous', { simple: true })), NORMAL);
  });
});
