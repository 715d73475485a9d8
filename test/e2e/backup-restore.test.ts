/**
 * `store-orders backup` and `restore` on SQLite, against a real
 * `store-orders serve` process: a backup taken under cancel load holds every
 * cancel acknowledged before it began, and restore refuses to replace a
 * database that a server has open.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, test, type TestContext } from 'node:test';
import { Database } from '../../src/storage/sqlite/sqlite-driver.js';
import { openSqliteStorage } from '../../src/storage/sqlite/sqlite-storage.js';
import { sharedDatabases } from '../support/e2e-databases.js';
import { runBin, startServer, type RunningServer } from '../support/process.js';

/** Enough that the cancel load outlasts the backup command (checked). */
const ORDERS = 20_000;
const CLIENTS = 8;
/** The backup starts once this many cancels have been acknowledged. */
const ACKS_BEFORE_BACKUP = 100;

function sqliteDatabases() {
  const factory = sharedDatabases.find((database) => database.name === 'sqlite');
  if (factory === undefined) throw new Error('no SQLite database factory');
  return factory;
}

function tempDir(t: TestContext): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'store-orders-backup-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

async function stopped(server: RunningServer): Promise<void> {
  server.child.kill('SIGTERM');
  assert.equal(await server.exited, 0);
}

/** A store with one account, its key and `orders` pending orders numbered from 1. */
async function seededStore(t: TestContext, orders: number) {
  const shared = await sqliteDatabases().create(t);
  const { services, storage } = shared.open();
  await storage.migrate();
  const account = await services.accounts.createAccount({ name: 'Main Street Pets' });
  const { secret } = await services.apiKeys.createKey({ accountId: account.id });
  const lines = Array.from({ length: orders }, (_, index) => JSON.stringify({ id: index + 1, petId: 7, quantity: 1 }));
  await services.orderOperations.importOrders(account.id, (async function* () {
    yield lines;
  })());
  // The test's own connection would count as a user of the file; only servers should.
  await storage.close();
  const file = shared.url.slice('sqlite:'.length);
  return { url: shared.url, file, accountId: account.id, secret };
}

async function statusesIn(file: string, accountId: number): Promise<Map<bigint, string>> {
  const storage = openSqliteStorage(file);
  try {
    return new Map((await storage.orders.listAll(accountId)).map((order) => [order.id, order.status]));
  } finally {
    await storage.close();
  }
}

describe('backup and restore (SQLite, against a running server)', () => {
  test('when cancels keep arriving during a backup, then the restored database holds every cancel acknowledged before the backup began', async (t) => {
    const store = await seededStore(t, ORDERS);
    // One client sends every cancel: no rate limit in the way. No load shedding either: on a CI machine whose two
    // cores also run other test files, browsers and PostgreSQL, this server's event loop measured a mean delay over
    // its 1 s bound (the delay counts the time the process waits for a core), and it answered cancels 503 overloaded,
    // as it should; shedding has tests of its own (test/http/), and this one is about what a backup holds.
    const server = await startServer(t, { DATABASE_URL: store.url, RATE_LIMIT_REQUESTS: '0', LOAD_SHED_MAX_EVENT_LOOP_DELAY_MS: '0' });
    const backupFile = path.join(tempDir(t), 'backups', 'store.db');

    const acknowledged = new Set<bigint>();
    const sent = new Set<bigint>();
    let ackedBeforeBackup: ReadonlySet<bigint> | undefined;
    let acksWhileBackingUp = 0;
    let backingUp = false;
    let stop = false;
    let backup: Promise<{ code: number; stdout: string; stderr: string }> | undefined;
    let next = 1;
    const client = async () => {
      while (!stop && next <= ORDERS) {
        const id = BigInt(next++);
        sent.add(id);
        const response = await fetch(`${server.baseUrl}/v1/store/orders/${id}`, {
          method: 'DELETE',
          headers: { authorization: `Bearer ${store.secret}` },
        });
        const body = await response.text();
        // The Error record says which refusal it was (the database busy past its 1 s wait, the server shedding load).
        assert.equal(response.status, 204, `cancel of ${id}: ${body}`);
        acknowledged.add(id);
        if (backingUp) acksWhileBackingUp++;
        if (backup === undefined && acknowledged.size === ACKS_BEFORE_BACKUP) {
          // Everything acknowledged up to this instant must be in the backup.
          ackedBeforeBackup = new Set(acknowledged);
          backingUp = true;
          backup = runBin(['backup', backupFile, '--json'], { DATABASE_URL: store.url }).finally(() => {
            backingUp = false;
            stop = true;
          });
        }
      }
    };
    await Promise.all(Array.from({ length: CLIENTS }, client));
    assert.ok(backup !== undefined && ackedBeforeBackup !== undefined, 'the backup started');
    const result = await backup;
    assert.equal(result.code, 0, result.stderr);
    const report = JSON.parse(result.stdout) as { file: string; schemaVersion: number; startedAt: string };
    assert.equal(report.file, backupFile);
    assert.ok(acksWhileBackingUp > 0, 'the server kept acknowledging cancels while the backup ran');
    assert.ok(acknowledged.size < ORDERS, 'the load outlasted the backup');

    // Restore into a fresh path, as onto a new machine, and serve from it.
    const restoredFile = path.join(tempDir(t), 'data', 'store.db');
    const restore = await runBin(['restore', backupFile], { DATABASE_URL: `sqlite:${restoredFile}` });
    assert.equal(restore.code, 0, restore.stderr);
    assert.match(restore.stdout, /Restored .* \(schema version \d+\) into /);

    const restored = await statusesIn(restoredFile, store.accountId);
    assert.equal(restored.size, ORDERS);
    for (const id of ackedBeforeBackup) assert.equal(restored.get(id), 'cancelled', `order ${id}, acknowledged before the backup began`);
    for (const [id, status] of restored) {
      if (!sent.has(id)) assert.equal(status, 'pending', `order ${id} was never cancelled`);
    }

    await stopped(server);
    const fromBackup = await startServer(t, { DATABASE_URL: `sqlite:${restoredFile}` });
    const listing = await fetch(`${fromBackup.baseUrl}/v1/store/orders`, { headers: { authorization: `Bearer ${store.secret}` } });
    assert.equal(listing.status, 200);
    const listed = new Set(((await listing.json()) as { id: number }[]).map((order) => BigInt(order.id)));
    for (const id of ackedBeforeBackup) assert.ok(!listed.has(id), `cancelled order ${id} is listed by the restored server`);
    await stopped(fromBackup);
  });

  test('when a server has the database open, then restore refuses and changes nothing; once it stops, then restore replaces it and keeps the old file', async (t) => {
    const store = await seededStore(t, 3);
    const env = { DATABASE_URL: store.url };
    const server = await startServer(t, env);
    const backupFile = path.join(tempDir(t), 'store.db');
    assert.equal((await runBin(['backup', backupFile], env)).code, 0);
    const cancel = await fetch(`${server.baseUrl}/v1/store/orders/1`, { method: 'DELETE', headers: { authorization: `Bearer ${store.secret}` } });
    assert.equal(cancel.status, 204);

    const refused = await runBin(['restore', backupFile, '--json'], env);
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /^store-orders: .*store\.db is in use \(a server or another process has it open\); stop every process using it first, or give --force/);
    assert.equal((JSON.parse(refused.stdout) as { code: string }).code, 'command_failed');
    assert.equal((await statusesIn(store.file, store.accountId)).get(1n), 'cancelled', 'the live database is untouched');
    const dir = path.dirname(store.file);
    assert.deepEqual(readdirSync(dir).filter((name) => /restore/.test(name)), [], 'no leftovers beside the database');

    await stopped(server);
    const restored = await runBin(['restore', backupFile, '--json'], env);
    assert.equal(restored.code, 0, restored.stderr);
    const report = JSON.parse(restored.stdout) as { replacedKeptAs: string; wasInUse: boolean };
    assert.equal(report.wasInUse, false);
    assert.equal((await statusesIn(store.file, store.accountId)).get(1n), 'pending', 'the backup predates the cancel');
    assert.equal((await statusesIn(report.replacedKeptAs, store.accountId)).get(1n), 'cancelled', 'the replaced database is kept whole');
  });

  test('when the backup file exists, then backup refuses unless --force, and restore refuses damaged, foreign and newer backups', async (t) => {
    const store = await seededStore(t, 2);
    const env = { DATABASE_URL: store.url };
    const dir = tempDir(t);
    const backupFile = path.join(dir, 'store.db');
    assert.equal((await runBin(['backup', backupFile], env)).code, 0);
    const first = readFileSync(backupFile);

    const again = await runBin(['backup', backupFile], env);
    assert.equal(again.code, 1);
    assert.match(again.stderr, /already exists; choose a new file or give --force to overwrite it/);
    assert.deepEqual(readFileSync(backupFile), first);
    assert.equal((await runBin(['backup', backupFile, '--force'], env)).code, 0);

    const damaged = path.join(dir, 'damaged.db');
    const bytes = Buffer.from(first);
    bytes.fill(0x5a, 4096, 8192); // one page of garbage past the header
    writeFileSync(damaged, bytes);
    const foreign = path.join(dir, 'foreign.db');
    const plain = new Database(foreign);
    plain.exec('CREATE TABLE notes (body TEXT)');
    plain.close();
    const newer = path.join(dir, 'newer.db');
    assert.equal((await runBin(['backup', newer], env)).code, 0);
    const bump = new Database(newer);
    bump.prepare("INSERT INTO schema_migrations (version, name, applied_at) VALUES (999, '0999-future', '2030-01-01T00:00:00Z')").run();
    bump.close();

    const before = readFileSync(store.file);
    for (const [file, message] of [
      [damaged, /damaged\.db (fails PRAGMA integrity_check|is not a readable SQLite database)/],
      [foreign, /foreign\.db is not a Store Orders database/],
      [newer, /newer\.db has schema version 999, newer than this program knows/],
      [path.join(dir, 'missing.db'), /there is no backup at .*missing\.db/],
    ] as const) {
      const refused = await runBin(['restore', file], env);
      assert.equal(refused.code, 1, file);
      assert.match(refused.stderr, message);
    }
    assert.deepEqual(readFileSync(store.file), before, 'the database is untouched');
    assert.ok(!readdirSync(path.dirname(store.file)).some((name) => /restore/.test(name)), 'no leftovers beside the database');
    assert.ok(existsSync(backupFile));
  });

  test('when the database is PostgreSQL, then backup and restore exit 1 and name pg_dump and pg_restore', async () => {
    const env = { DATABASE_URL: 'postgres://store:secret-password@127.0.0.1:9/store' };
    const backup = await runBin(['backup', 'store.dump'], env);
    assert.equal(backup.code, 1);
    assert.match(backup.stderr, /use pg_dump, e\.g\. pg_dump --format=custom/);
    const restore = await runBin(['restore', 'store.dump', '--json'], env);
    assert.equal(restore.code, 1);
    assert.match(restore.stderr, /use pg_restore into an empty database/);
    assert.equal((JSON.parse(restore.stdout) as { code: string }).code, 'command_failed');
    assert.doesNotMatch(backup.stderr + restore.stderr, /secret-password/);
  });
});
