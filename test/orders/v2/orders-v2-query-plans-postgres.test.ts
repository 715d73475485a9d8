import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import pg from 'pg';
import { pageSql } from '../../../src/storage/postgres/postgres-orders-repository.js';
import { postgresBackend } from '../../support/storage.js';
import { describeQuery, everyPageQueryShape } from '../../support/query-shapes.js';

/** The plan's node lines, e.g. "Limit", "Index Scan using orders_account_pet on orders". */
async function postgresPlan(client: pg.Client, text: string, values: readonly unknown[]): Promise<string[]> {
  const { rows } = await client.query<{ 'QUERY PLAN': string }>(`EXPLAIN (COSTS OFF) ${text}`, [...values]);
  return rows.map((row) => row['QUERY PLAN']);
}

/** Rows come from an index, in id order: LIMIT stops the scan after one page. */
function assertOrderedIndexScan(plan: string[], label: string): void {
  const text = plan.join('\n');
  assert.match(text, /Index (Only )?Scan using \w+ on (orders|accounts)/, `${label}:\n${text}`);
  assert.doesNotMatch(text, /Seq Scan|Sort|Bitmap/, `${label}:\n${text}`);
}

/** Rows come from an index (possibly as a bitmap, then sorted): never a sequential scan. */
function assertIndexBacked(plan: string[], label: string): void {
  const text = plan.join('\n');
  assert.match(text, /Index (Only )?Scan (using \w+ )?on (orders|accounts|orders_\w+)/, `${label}:\n${text}`);
  assert.doesNotMatch(text, /Seq Scan/, `${label}:\n${text}`);
}

const SMALL_ACCOUNTS = 200;
const BIG_ACCOUNT = SMALL_ACCOUNTS + 1;

describe('query plans (postgres)', () => {
  test('when sequential scans, bitmaps and sorts are made unattractive, then an index serves every listing query in id order', async (t) => {
    const { config } = await postgresBackend.freshDatabase(t);
    assert.equal(config.kind, 'postgres');
    const client = new pg.Client({ connectionString: config.url });
    // The database is dropped WITH (FORCE) after the test, which may end this
    // connection first.
    client.on('error', () => undefined);
    await client.connect();
    t.after(() => client.end().catch(() => undefined));
    // On a nearly empty table a sequential scan is cheapest and hides which
    // index could serve the query; this shows one exists and needs no sort.
    await client.query('SET enable_seqscan = off; SET enable_bitmapscan = off; SET enable_sort = off');
    for (const query of everyPageQueryShape()) {
      const { text, values } = pageSql(query);
      assertOrderedIndexScan(await postgresPlan(client, text, values), describeQuery(query));
    }
    assertOrderedIndexScan(await postgresPlan(client, "SELECT id FROM orders WHERE account_id = $1 AND status <> 'cancelled' ORDER BY id", [2]), 'v1 listing');
    assertOrderedIndexScan(await postgresPlan(client, 'SELECT orders_version FROM accounts WHERE id = $1', [2]), 'orders version');
  });

  test('when the database is ANALYZEd with many small accounts and one large one, then every plan reads through an index; the large account pages in index order', async (t) => {
    const { config } = await postgresBackend.freshDatabase(t);
    assert.equal(config.kind, 'postgres');
    const client = new pg.Client({ connectionString: config.url });
    // The database is dropped WITH (FORCE) after the test, which may end this
    // connection first.
    client.on('error', () => undefined);
    await client.connect();
    t.after(() => client.end().catch(() => undefined));
    await client.query(`INSERT INTO accounts (name, created_at) SELECT 'a' || n, now() FROM generate_series(1, ${BIG_ACCOUNT}) AS n`);
    await client.query(
      `INSERT INTO orders (id, account_id, pet_id, quantity, ship_date, complete, status, created_at, updated_at)
       SELECT i, CASE WHEN i <= 20000 THEN 1 + i % ${SMALL_ACCOUNTS} ELSE ${BIG_ACCOUNT} END, i % 40, 1,
              timestamptz '2026-01-01' + (i % 9) * interval '1 month', i % 2 = 0,
              CASE WHEN i % 7 = 0 THEN 'cancelled' WHEN i % 3 = 0 THEN 'shipped' ELSE 'pending' END, now(), now()
       FROM generate_series(1, 60000) AS i`,
    );
    await client.query('ANALYZE');
    const nodes = new Set<string>();
    for (const shape of everyPageQueryShape()) {
      for (const accountId of [2, BIG_ACCOUNT]) {
        const query = { ...shape, accountId, afterId: shape.afterId === undefined ? undefined : accountId === BIG_ACCOUNT ? 30_000n : 1000n };
        const { text, values } = pageSql(query);
        const plan = await postgresPlan(client, text, values);
        const label = `${describeQuery(query)} (account ${accountId === BIG_ACCOUNT ? 'large' : 'small'})`;
        // Unfiltered pages of a large account must not fetch and sort the
        // whole account; with a selective filter the planner may fetch the
        // few matching rows through the index and sort those, which is fine.
        const unfiltered = Object.keys(query.filter).length === 0;
        if (accountId === BIG_ACCOUNT && unfiltered) assertOrderedIndexScan(plan, label);
        else assertIndexBacked(plan, label);
        for (const line of plan) if (/Scan|Sort/.test(line)) nodes.add(`${accountId === BIG_ACCOUNT ? 'large' : 'small'}: ${line.trim()}`);
      }
    }
    assertIndexBacked(await postgresPlan(client, "SELECT id FROM orders WHERE account_id = $1 AND status <> 'cancelled' ORDER BY id", [2]), 'v1 listing');
    t.diagnostic(`plan nodes over ${everyPageQueryShape().length} query shapes: ${[...nodes].sort().join('; ')}`);
  });
});
