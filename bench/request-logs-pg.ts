/**
 * Issue 28: a filtered page of a 14-day, 10-million-row request log on
 * PostgreSQL, target under 50 ms (p99, warm). `npm run bench -- --only request-logs-pg`
 * (`--quick`: 1,000,000 rows).
 *
 * A fresh embedded PostgreSQL (fsync on, as the bench's other PostgreSQL
 * rows), migrated as production is (`storage.migrate()`), its accounts and
 * keys made through the storage, then filled by set-based SQL
 * (generate_series, random() from a fixed seed): not through the recorder's
 * statements, 5,000 of 2,000 rows, some ten minutes here. The table's secondary indexes are dropped for
 * the fill and rebuilt after it from their own definitions
 * (pg_get_indexdef), which leaves the schema as migrated and builds each
 * index by one sort instead of ten million inserts. Then VACUUM ANALYZE,
 * the state autovacuum leaves an insert-only table in.
 *
 * The rows: 14 days ending at the fill's start, ids in arrival order; 85 %
 * to one busy account (the worst case for its pages), the rest over 30
 * others; the busy account's keys take 60 / 30 / 9 / 1 % (the "quiet" key)
 * and one key has no request; methods GET, POST, DELETE and a few PATCH,
 * HEAD and OPTIONS (no PUT); the v1/v2 routes with order ids 1 to 200,000;
 * statuses 200/201/204, 3 % 4xx (400, 401, 403, 404, 409, 422, 429) and
 * 0.05 % 5xx (500, 503); unique request ids (UUIDs).
 *
 * Each query goes through the real repository's listPage or listForOrder
 * (limit 51: a page of 50 and the look-ahead the service asks for), first
 * page and a page behind a cursor 7 days back; one cold run (the first after
 * the fill), then warm runs: p50, p99 and max. EXPLAIN (ANALYZE, BUFFERS) of
 * every query whose warm p99 is over 50 ms goes to stderr.
 */
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import type { RequestLogFilters, RequestLogPosition, RequestLogsRepository } from '../src/request-logs/request-logs-repository.js';
import { createPostgresPool } from '../src/storage/postgres/postgres-pool.js';
import { createPostgresRequestLogsRepository } from '../src/storage/postgres/postgres-request-logs-repository.js';
import { openPostgresStorage } from '../src/storage/postgres/postgres-storage.js';
import { startEmbeddedPostgres } from '../test/support/embedded-postgres.js';
import { storedRequests } from '../src/request-logs/stored-requests.js';

export interface RequestLogsPgRow {
  scenario: string;
  p50: number;
  p99: number;
  note: string;
}

const DAY_MS = 86_400_000;
const TARGET_MS = 50;
/** Warm runs per query, fewer when a query is slow (at most about WARM_BUDGET_MS of warm runs each). */
const WARM_RUNS = 100;
const WARM_BUDGET_MS = 8_000;
const LIMIT = 51;

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? NaN;
}

interface Fixture {
  busy: number;
  small: number;
  keys: { busy: number; quiet: number; unused: number };
  end: number;
}

/** Accounts and keys through the storage, then the rows by one INSERT … SELECT over generate_series. */
async function fill(url: string, rowCount: number, log: (line: string) => void): Promise<Fixture> {
  const storage = openPostgresStorage({ url, poolSize: 2 });
  await storage.migrate();
  const at = new Date().toISOString();
  const accounts: number[] = [];
  const keyIds: number[] = [];
  for (let i = 0; i < 31; i++) {
    const account = await storage.accounts.create({ name: `bench-logs-${i}`, createdAt: at });
    accounts.push(account.id);
    for (let k = 0; k < (i === 0 ? 5 : 1); k++) {
      const hash = `${i.toString(16).padStart(4, '0')}${k}`.padEnd(64, 'a');
      keyIds.push((await storage.apiKeys.create({ accountId: account.id, hash, start: `so_prod_${String(i * 10 + k).padStart(4, '0')}`, createdAt: at, scopes: ['orders:read'] })).id);
    }
  }
  await storage.close();
  const [k1, k2, k3, k4, k5] = keyIds;
  const otherKeys = keyIds.slice(5);
  const client = new pg.Client({ connectionString: url });
  client.on('error', () => undefined);
  await client.connect();
  try {
    const { rows: indexes } = await client.query<{ name: string; def: string }>(
      `SELECT indexrelid::regclass::text AS name, pg_get_indexdef(indexrelid) AS def FROM pg_index
       WHERE indrelid = 'request_logs'::regclass AND NOT EXISTS (SELECT 1 FROM pg_constraint WHERE conindid = indexrelid)`,
    );
    for (const index of indexes) await client.query(`DROP INDEX ${index.name}`);
    const end = Date.now();
    await client.query('SET statement_timeout = 0');
    await client.query("SET maintenance_work_mem = '512MB'");
    await client.query('SELECT setseed(0.28)');
    let started = performance.now();
    // OFFSET 0 keeps each row's random() values computed once, below the CASEs that read them.
    await client.query(
      `INSERT INTO request_logs (account_id, at, method, path, status, error_code, duration_ms, request_id, key_id, client_address, user_agent, api_version, error_body)
       SELECT account_id, at, method, path, status, error_code, duration_ms, request_id, key_id, client_address, user_agent, substr(path, 2, 2), error_body
       FROM (
         SELECT r.*, a.*, m.*, f.*, CASE WHEN f.status >= 400 THEN format('{"code":"%s","message":"Refused.","status":%s}', f.error_code, f.status) END AS error_body
         FROM (
           SELECT g, $1::timestamptz + (g - 1 + random()) * ($2::timestamptz - $1::timestamptz) / ${rowCount} AS at,
             random() AS ra, random() AS rr, random() AS rs, random() AS re, random() AS rk, (1 + floor(random() * 200000))::bigint AS order_id, random() AS rd
           FROM generate_series(1, ${rowCount}) g OFFSET 0
         ) r
         CROSS JOIN LATERAL (SELECT
           CASE WHEN r.ra < 0.85 THEN $3::bigint ELSE ($4::bigint[])[1 + floor((r.ra - 0.85) / 0.15 * 30)::int] END AS account_id,
           CASE WHEN r.ra >= 0.85 THEN ($5::bigint[])[1 + floor((r.ra - 0.85) / 0.15 * 30)::int]
                WHEN r.rk < 0.60 THEN $6::bigint WHEN r.rk < 0.90 THEN $7::bigint WHEN r.rk < 0.99 THEN $8::bigint ELSE $9::bigint END AS key_id,
           md5(r.g::text)::uuid::text AS request_id,
           round((0.4 + r.rd * r.rd * 60)::numeric, 3)::float8 AS duration_ms,
           '203.0.113.' || (r.g % 250) AS client_address,
           (ARRAY['store-sync/2.4 (node 20)', 'curl/8.5.0', '@store-orders/client 1.3.0', 'python-requests/2.32'])[1 + r.g % 4] AS user_agent
         ) a
         CROSS JOIN LATERAL (SELECT
           CASE WHEN r.rr < 0.40 THEN 'GET' WHEN r.rr < 0.52 THEN 'GET' WHEN r.rr < 0.68 THEN 'GET' WHEN r.rr < 0.78 THEN 'POST'
                WHEN r.rr < 0.88 THEN 'DELETE' WHEN r.rr < 0.91 THEN 'DELETE' WHEN r.rr < 0.95 THEN 'GET' WHEN r.rr < 0.97 THEN 'GET'
                WHEN r.rr < 0.985 THEN 'GET' WHEN r.rr < 0.995 THEN 'GET' WHEN r.rr < 0.997 THEN 'PATCH' WHEN r.rr < 0.998 THEN 'GET'
                WHEN r.rr < 0.9995 THEN 'HEAD' ELSE 'OPTIONS' END AS method,
           CASE WHEN r.rr < 0.40 THEN '/v1/store/orders' WHEN r.rr < 0.52 THEN '/v2/store/orders?limit=50'
                WHEN r.rr < 0.68 THEN '/v2/store/orders/' || r.order_id WHEN r.rr < 0.78 THEN '/v2/store/orders'
                WHEN r.rr < 0.88 THEN '/v1/store/orders/' || r.order_id WHEN r.rr < 0.91 THEN '/v2/store/orders/' || r.order_id
                WHEN r.rr < 0.95 THEN '/v2/events?after=' || r.g WHEN r.rr < 0.97 THEN '/v1/pets/' || (r.g % 5000)
                WHEN r.rr < 0.985 THEN '/v2/request-logs?status=4xx' WHEN r.rr < 0.995 THEN '/v2/audit-events'
                WHEN r.rr < 0.997 THEN '/v2/webhook-endpoints/we_' || (r.g % 7) WHEN r.rr < 0.998 THEN '/v2/webhook-endpoints'
                WHEN r.rr < 0.9995 THEN '/v1/store/orders' ELSE '/v2/store/orders' END AS path
         ) m
         CROSS JOIN LATERAL (SELECT
           CASE WHEN r.rs < 0.0005 THEN (ARRAY[500, 503])[1 + r.g % 2]
                WHEN r.rs < 0.0305 THEN (ARRAY[400, 401, 403, 404, 404, 404, 409, 409, 409, 422, 429, 401])[1 + floor(r.re * 12)::int]
                WHEN m.method = 'POST' THEN 201 WHEN m.method = 'DELETE' THEN 204 ELSE 200 END AS status
         ) s0
         CROSS JOIN LATERAL (SELECT s0.status,
           CASE s0.status WHEN 400 THEN 'validation_failed' WHEN 401 THEN 'invalid_api_key' WHEN 403 THEN 'insufficient_scope'
             WHEN 404 THEN 'order_not_found' WHEN 409 THEN 'order_already_shipped' WHEN 422 THEN 'validation_failed'
             WHEN 429 THEN 'rate_limited' WHEN 500 THEN 'internal_error' WHEN 503 THEN 'service_unavailable' END AS error_code
         ) f
       ) rows`,
      [new Date(end - 14 * DAY_MS).toISOString(), new Date(end).toISOString(), accounts[0], accounts.slice(1), otherKeys, k1, k2, k3, k4],
    );
    log(`filled ${rowCount.toLocaleString('en-US')} rows in ${((performance.now() - started) / 1000).toFixed(0)} s`);
    started = performance.now();
    for (const index of indexes) await client.query(index.def);
    log(`rebuilt ${indexes.length} indexes in ${((performance.now() - started) / 1000).toFixed(0)} s`);
    started = performance.now();
    await client.query('VACUUM (ANALYZE) request_logs');
    log(`VACUUM ANALYZE in ${((performance.now() - started) / 1000).toFixed(0)} s`);
    return { busy: accounts[0] ?? 0, small: accounts[1] ?? 0, keys: { busy: k1 ?? 0, quiet: k4 ?? 0, unused: k5 ?? 0 }, end };
  } finally {
    await client.end();
  }
}

interface Query {
  name: string;
  run: (repository: RequestLogsRepository, before: RequestLogPosition | undefined) => Promise<unknown[]>;
  /** The account whose cursor a deep page starts from; none: the query has no deep page. */
  deepFrom?: number;
}

function queries(f: Fixture, requestId: string): Query[] {
  const hours = (h: number) => new Date(f.end - h * 3_600_000).toISOString();
  const page = (name: string, filters: RequestLogFilters, accountId = f.busy): Query => ({
    name,
    deepFrom: accountId,
    run: (repository, before) => repository.listPage({ accountId, filters, limit: LIMIT, ...(before === undefined ? {} : { before }) }),
  });
  const order = (name: string, orderId: bigint): Query => ({ name, run: (repository) => repository.listForOrder({ accountId: f.busy, orderId, limit: LIMIT }) });
  const s4xx = { min: 400, max: 499 };
  const s5xx = { min: 500, max: 599 };
  const s409 = { min: 409, max: 409 };
  return [
    page('no filter', {}),
    page('status=4xx', { status: s4xx }),
    page('status=5xx', { status: s5xx }),
    page('status=409', { status: s409 }),
    page('status=2xx', { status: { min: 200, max: 299 } }),
    page('status=503', { status: { min: 503, max: 503 } }),
    page('status=418 (never answered)', { status: { min: 418, max: 418 } }),
    page('status=3xx (never answered)', { status: { min: 300, max: 399 } }),
    page('method=DELETE', { method: 'DELETE' }),
    page('method=HEAD (0.15 %)', { method: 'HEAD' }),
    page('method=OPTIONS (0.05 %)', { method: 'OPTIONS' }),
    page('method=PUT (never used)', { method: 'PUT' }),
    page('path=/v1/store/orders (most rows)', { pathPrefix: '/v1/store/orders' }),
    page('path=/v2/webhook-endpoints (rare)', { pathPrefix: '/v2/webhook-endpoints' }),
    page('path=/v2/store/orders/4242 (one order and its longer ids)', { pathPrefix: '/v2/store/orders/4242' }),
    page('path=/v2/store/orders/42 (1,111 orders, 0.1 %)', { pathPrefix: '/v2/store/orders/42' }),
    page('path=/v1/pets/12 (0.05 %)', { pathPrefix: '/v1/pets/12' }),
    page('path=/v2/webhook-endpoints/we_3 (0.03 %)', { pathPrefix: '/v2/webhook-endpoints/we_3' }),
    page('path=/v3/nothing (never used)', { pathPrefix: '/v3/nothing' }),
    page('requestId (one request, 7 days back)', { requestId }),
    page('requestId (none)', { requestId: 'no-such-request' }),
    page('keyId busy key (60 %)', { keyId: f.keys.busy }),
    page('keyId quiet key (1 %)', { keyId: f.keys.quiet }),
    page('keyId with no request', { keyId: f.keys.unused }),
    page('status=5xx, quiet key', { status: s5xx, keyId: f.keys.quiet }),
    page('status=5xx, busy key', { status: s5xx, keyId: f.keys.busy }),
    page('status=4xx, method=DELETE', { status: s4xx, method: 'DELETE' }),
    page('status=409, path=/v1/store/orders/', { status: s409, pathPrefix: '/v1/store/orders/' }),
    page('method=DELETE, quiet key, last 3 days', { method: 'DELETE', keyId: f.keys.quiet, since: hours(72) }),
    page('method=HEAD, status=4xx', { method: 'HEAD', status: s4xx }),
    page('method=POST, path=/v1/store/orders (each common, never together)', { method: 'POST', pathPrefix: '/v1/store/orders' }),
    page('one day in the middle (7–8 days ago)', { since: hours(192), until: hours(168) }),
    page('one hour in the middle', { since: hours(169), until: hours(168) }),
    page('one day in the middle, status=5xx', { status: s5xx, since: hours(192), until: hours(168) }),
    page('one day in the middle, keyId with no request', { keyId: f.keys.unused, since: hours(192), until: hours(168) }),
    page('one day in the middle, path never used', { pathPrefix: '/v3/nothing', since: hours(192), until: hours(168) }),
    page('small account (0.5 %), no filter', {}, f.small),
    page('small account, status=5xx', { status: s5xx }, f.small),
    order('listForOrder, order with requests', 4242n),
    order('listForOrder, order without requests', 999_999_999n),
  ];
}

async function timed(run: () => Promise<unknown[]>): Promise<{ ms: number; rows: number }> {
  const started = performance.now();
  const rows = await run();
  return { ms: performance.now() - started, rows: rows.length };
}

/** Fills, then times every query, first page and deep page; rows for the bench's table, plans on stderr. */
export async function requestLogsPgRows({ quick, log }: { quick: boolean; log: (line: string) => void }): Promise<RequestLogsPgRow[]> {
  const rowCount = quick ? 1_000_000 : 10_000_000;
  const embedded = await startEmbeddedPostgres({ durable: true });
  const out: RequestLogsPgRow[] = [];
  try {
    const admin = new pg.Client({ connectionString: embedded.url });
    admin.on('error', () => undefined);
    await admin.connect();
    await admin.query('SET statement_timeout = 0');
    // Only the fill's checkpoints: WAL of a few GB in one statement, on a cluster made for this run.
    await admin.query("ALTER SYSTEM SET max_wal_size = '8GB'");
    await admin.query('SELECT pg_reload_conf()');
    const f = await fill(embedded.url, rowCount, log);
    const { rows: sizes } = await admin.query<{ name: string; size: string }>(
      `SELECT c.relname AS name, pg_size_pretty(pg_relation_size(c.oid)) AS size FROM pg_class c
       WHERE c.oid = 'request_logs'::regclass OR c.oid IN (SELECT indexrelid FROM pg_index WHERE indrelid = 'request_logs'::regclass) ORDER BY c.oid`,
    );
    log(`sizes: ${sizes.map((row) => `${row.name} ${row.size}`).join(', ')}`);
    // The real repository over a pool, each statement remembered for its EXPLAIN.
    const pool = createPostgresPool({ url: embedded.url, poolSize: 2 });
    let last: { text: string; values: readonly unknown[] } = { text: '', values: [] };
    const repository = createPostgresRequestLogsRepository((text, values) => {
      last = { text, values: values ?? [] };
      return pool.sql(text, values);
    });
    // Where a page 7 days back starts: the cursor of the account's newest row older than that.
    const deep = new Map<number, RequestLogPosition>();
    let requestId = 'none';
    for (const accountId of [f.busy, f.small]) {
      const [row] = await repository.listPage({ accountId, filters: { until: new Date(f.end - 7 * DAY_MS).toISOString() }, limit: 1 });
      if (row !== undefined) deep.set(accountId, { at: row.at, id: row.id });
      if (row !== undefined && accountId === f.busy) requestId = row.requestId;
    }
    for (const query of queries(f, requestId)) {
      const positions: [string, RequestLogPosition | undefined][] = [['first page', undefined]];
      const from = query.deepFrom === undefined ? undefined : deep.get(query.deepFrom);
      if (from !== undefined) positions.push(['page 7 days back', from]);
      for (const [where, before] of positions) {
        const cold = await timed(() => query.run(repository, before));
        const statement = last;
        const times: number[] = [];
        let spent = 0;
        while (times.length < WARM_RUNS && (spent < WARM_BUDGET_MS || times.length < 3)) {
          const { ms } = await timed(() => query.run(repository, before));
          times.push(ms);
          spent += ms;
        }
        times.sort((a, b) => a - b);
        const p99 = percentile(times, 99);
        out.push({
          scenario: `request logs, PostgreSQL, ${(rowCount / 1e6).toFixed(0)}M rows: ${query.name}, ${where}`,
          p50: percentile(times, 50),
          p99,
          note: `${cold.rows} rows; cold ${cold.ms.toFixed(1)} ms; max ${(times.at(-1) ?? NaN).toFixed(1)} ms of ${times.length} warm runs${p99 > TARGET_MS ? '; **over 50 ms**' : ''}`,
        });
        log(`${query.name}, ${where}: ${cold.rows} rows, cold ${cold.ms.toFixed(1)} ms, p50 ${percentile(times, 50).toFixed(1)}, p99 ${p99.toFixed(1)}, max ${(times.at(-1) ?? NaN).toFixed(1)} ms`);
        if (p99 > TARGET_MS) {
          const { rows: plan } = await admin.query<{ 'QUERY PLAN': string }>(`EXPLAIN (ANALYZE, BUFFERS) ${statement.text}`.replace(/\$(\d+)/g, (_m, n: string) => literal(statement.values[Number(n) - 1])));
          log(`EXPLAIN (ANALYZE, BUFFERS) of "${query.name}, ${where}":\n${plan.map((line) => `    ${line['QUERY PLAN']}`).join('\n')}`);
        }
      }
    }
    out.push(...(await writeCosts(repository, admin, f, log)));
    await pool.end();
    await admin.end();
  } finally {
    await embedded.destroy();
  }
  return out;
}

/**
 * What the indexes cost the writes, on the filled table: the recorder's
 * statement (2,000 entries, `append`), the pruner's (`deleteOlderThan`,
 * 10,000 of the oldest entries), and the VACUUM that the deletes then need.
 */
async function writeCosts(repository: RequestLogsRepository, admin: pg.Client, f: Fixture, log: (line: string) => void): Promise<RequestLogsPgRow[]> {
  const rows: RequestLogsPgRow[] = [];
  const measure = async (scenario: string, times: number[], note: string) => {
    times.sort((a, b) => a - b);
    rows.push({ scenario, p50: percentile(times, 50), p99: percentile(times, 99), note: `${note}; max ${(times.at(-1) ?? NaN).toFixed(1)} ms of ${times.length}` });
    log(`${scenario}: p50 ${percentile(times, 50).toFixed(1)}, max ${(times.at(-1) ?? NaN).toFixed(1)} ms`);
  };
  const appends: number[] = [];
  for (let batch = 0; batch < 20; batch++) {
    const at = new Date().toISOString();
    const entries = Array.from({ length: 2000 }, (_, i) => ({
      accountId: f.busy,
      at,
      method: i % 10 === 0 ? 'DELETE' : 'GET',
      path: i % 10 === 0 ? `/v1/store/orders/${batch * 2000 + i}` : '/v1/store/orders',
      status: i % 10 === 0 ? 204 : 200,
      durationMs: 1.25,
      requestId: randomUUID(),
      keyId: f.keys.busy,
      clientAddress: '203.0.113.9',
      userAgent: 'store-sync/2.4 (node 20)',
      apiVersion: 'v1' as const,
    }));
    const started = performance.now();
    await repository.append(storedRequests(entries), []);
    appends.push(performance.now() - started);
  }
  await measure('request logs, PostgreSQL: append, 2,000 entries a statement', appends, '20 statements, as the recorder writes a flush');
  // A day of retention: the oldest day's entries, in the pruner's statements, then the VACUUM they call for.
  const deletes: number[] = [];
  const before = new Date(f.end - 13 * DAY_MS).toISOString();
  let deleted = 0;
  for (let round = 0; round < 200; round++) {
    const started = performance.now();
    const n = await repository.deleteOlderThan(before, 10_000);
    deletes.push(performance.now() - started);
    deleted += n;
    if (n < 10_000) break;
  }
  const deleting = deletes.reduce((sum, ms) => sum + ms, 0);
  await measure('request logs, PostgreSQL: deleteOlderThan, 10,000 entries a statement', deletes, `the oldest day, ${deleted.toLocaleString('en-US')} entries, in ${(deleting / 1000).toFixed(1)} s`);
  const started = performance.now();
  await admin.query('VACUUM request_logs');
  const vacuum = performance.now() - started;
  rows.push({ scenario: 'request logs, PostgreSQL: VACUUM after the day deleted', p50: vacuum, p99: vacuum, note: 'one run: the heap pages the deletes touched, then every index' });
  log(`VACUUM after the day deleted: ${vacuum.toFixed(0)} ms`);
  return rows;
}

/** A statement's parameter as an SQL literal, for its EXPLAIN (the bench's own values only). */
function literal(value: unknown): string {
  if (value === null || value === undefined) return 'NULL';
  if (typeof value === 'number' || typeof value === 'bigint') return String(value);
  return `'${String(value).replaceAll("'", "''")}'`;
}
