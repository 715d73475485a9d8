import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { sharedDatabases } from '../support/e2e-databases.js';
import { allMigrations } from '../support/migrations.js';
import { runBin } from '../support/process.js';

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
