import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type BetterSqlite3 from 'better-sqlite3';
import { Database } from '../../../src/storage/sqlite/sqlite-driver.js';
import { pageSql } from '../../../src/storage/sqlite/sqlite-orders-repository.js';
import { describeQuery, everyPageQueryShape } from '../../support/query-shapes.js';
import { sqliteBackend } from '../../support/storage.js';

/** SQLite plan lines: each access to orders must be an index SEARCH, never a SCAN or a sort. */
function sqlitePlan(db: BetterSqlite3.Database, text: string, args: readonly unknown[]): string[] {
  return (db.prepare(`EXPLAIN QUERY PLAN ${text}`).all(...args) as { detail: string }[]).map((row) => row.detail);
}

function assertIndexBacked(plan: string[], label: string): void {
  assert.ok(plan.length > 0, label);
  for (const line of plan) {
    assert.match(line, /^SEARCH (orders|accounts) USING (COVERING )?(INDEX \w+|INTEGER PRIMARY KEY) \(/, `${label}: ${line}`);
    assert.doesNotMatch(line, /TEMP B-TREE|^SCAN/, `${label}: ${line}`);
  }
}

describe('query plans (sqlite)', () => {
  for (const analyzed of [false, true]) {
    test(`when ${analyzed ? 'the database has been ANALYZEd over many accounts' : 'the database has no statistics (as the server leaves it)'}, then every listing query is an index search with no sort`, async (t) => {
      const { config } = await sqliteBackend.freshDatabase(t);
      assert.equal(config.kind, 'sqlite');
      const db = new Database(config.path);
      t.after(() => db.close());
      db.defaultSafeIntegers(true);
      if (analyzed) {
        const account = db.prepare("INSERT INTO accounts (name, created_at) VALUES ('a', '2026-01-01T00:00:00.000Z')");
        const order = db.prepare(
          `INSERT INTO orders (account_id, pet_id, quantity, ship_date, complete, status, created_at, updated_at)
           VALUES (?, ?, 1, ?, ?, ?, '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z')`,
        );
        db.transaction(() => {
          for (let a = 1; a <= 200; a++) account.run();
          for (let i = 0; i < 20_000; i++) {
            const status = i % 7 === 0 ? 'cancelled' : i % 3 === 0 ? 'shipped' : 'pending';
            order.run(1 + (i % 200), i % 40, `2026-0${1 + (i % 9)}-01T00:00:00.000Z`, i % 2, status);
          }
        })();
        db.exec('ANALYZE');
      }
      const plans = new Set<string>();
      for (const query of everyPageQueryShape()) {
        const { text, args } = pageSql(query);
        const plan = sqlitePlan(db, text, args);
        assertIndexBacked(plan, describeQuery(query));
        for (const line of plan) plans.add(line.replace(/\d+/g, 'N'));
      }
      // The v1 listing, the change counter read behind ETags, and lookups by id.
      assertIndexBacked(sqlitePlan(db, "SELECT id FROM orders WHERE account_id = ? AND status <> 'cancelled' ORDER BY id", [2]), 'v1 listing');
      assertIndexBacked(sqlitePlan(db, 'SELECT orders_version FROM accounts WHERE id = ?', [2]), 'orders version');
      assertIndexBacked(sqlitePlan(db, 'SELECT id FROM orders WHERE id = ?', [2]), 'order by id');
      t.diagnostic(`distinct plans over ${everyPageQueryShape().length} query shapes: ${[...plans].sort().join('; ')}`);
    });
  }
});
