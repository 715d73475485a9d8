import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { Database } from '../../src/storage/sqlite/sqlite-driver.js';
import { openSqliteStorage } from '../../src/storage/sqlite/sqlite-storage.js';
import { sharedDatabases } from '../support/e2e-databases.js';
import { allMigrations } from '../support/migrations.js';
import { ROOT, runBin } from '../support/process.js';

for (const database of sharedDatabases) {
  describe(`store-orders migrate (${database.name})`, () => {
    test('when several migrate commands start at once on an empty database, then exactly one applies the schema', async (t) => {
      const shared = await database.create(t);
      const env = { DATABASE_URL: shared.url };
      const runs = await Promise.all(Array.from({ length: 3 }, () => runBin(['migrate', '--json'], env)));
      for (const run of runs) assert.equal(run.code, 0, run.stderr);
      const reports = runs.map((run) => JSON.parse(run.stdout) as { applied: string[]; version: number });
      const all = allMigrations(database.name);
      assert.deepEqual(reports.flatMap((r) => r.applied), all.names);
      assert.ok(reports.every((r) => r.version === all.version));

      const again = await runBin(['migrate'], env);
      assert.equal(again.code, 0, again.stderr);
      assert.equal(again.stdout, `Schema is up to date (version ${all.version}).\n`);
    });
  });
}

describe('opening one new SQLite file while another process holds its lock', () => {
  // What two servers started together on a new file met in CI: while one
  // converted the file to WAL, the other's conversion (a read upgraded to a
  // write, which SQLite does not retry on the busy timeout) failed at once
  // with SQLITE_BUSY and the server exited. Here another process holds the
  // write lock of the new file for a while, deterministically.
  const holder = `
    import { Database } from ${JSON.stringify(pathToFileURL(path.join(ROOT, 'dist/storage/sqlite/sqlite-driver.js')).href)};
    const db = new Database(process.argv[1]);
    db.exec('BEGIN IMMEDIATE');
    process.stdout.write('holding\\n');
    setTimeout(() => { db.exec('COMMIT'); db.close(); }, Number(process.argv[2]));
  `;

  test('when another process holds the write lock of a new file, then opening waits for it and then opens it in WAL and migrates', async (t) => {
    const dir = await mkdtemp(path.join(tmpdir(), 'store-orders-open-race-'));
    t.after(() => rm(dir, { recursive: true, force: true }));
    const file = path.join(dir, 'new.sqlite');
    const child = spawn(process.execPath, ['--input-type=module', '-e', holder, file, '400'], { stdio: ['ignore', 'pipe', 'inherit'] });
    const exited = once(child, 'exit');
    await once(child.stdout, 'data');

    const started = performance.now();
    const storage = openSqliteStorage(file);
    t.after(() => storage.close());
    const waited = performance.now() - started;
    const report = await storage.migrate();
    assert.deepEqual(report.applied, allMigrations('sqlite').names);
    assert.ok(waited > 100, `opened after ${waited} ms, before the other process let go`);
    assert.deepEqual(await exited, [0, null]);
    const db = new Database(file);
    t.after(() => db.close());
    assert.equal(db.pragma('journal_mode', { simple: true }), 'wal');
  });
});
