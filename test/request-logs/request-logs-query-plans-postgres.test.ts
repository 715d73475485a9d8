/**
 * Issue 28, migration 0030: on PostgreSQL, which index each page of the
 * request logs reads. A filter that matches few entries or none reads them
 * through an index led by its own column (a page that walked the account's
 * entries instead read all 10 million of them, a second and more:
 * BENCHMARKS.md, "Tenth session"); a page of a filter that matches often
 * walks the account newest first, with no sort. The timings themselves are
 * `npm run bench -- --only request-logs-pg`'s; this guards the plans.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import pg from 'pg';
import type { RequestLogFilters } from '../../src/request-logs/request-logs-repository.js';
import { createPostgresPool } from '../../src/storage/postgres/postgres-pool.js';
import { createPostgresRequestLogsRepository } from '../../src/storage/postgres/postgres-request-logs-repository.js';
import { postgresBackend } from '../support/storage.js';

const AT = '2026-11-27T10:00:00.000Z';
const ROWS = 30_000;

describe('request logs query plans (postgres)', () => {
  test('when one busy account holds most of an ANALYZEd log, then a filter matching few or no entries reads its own index and a common one walks the account in order', async (t) => {
    const { config, storage } = await postgresBackend.freshDatabase(t);
    assert.equal(config.kind, 'postgres');
    const busy = await storage.accounts.create({ name: 'Main Street Pets', createdAt: AT });
    const other = await storage.accounts.create({ name: 'Harbour Pets', createdAt: AT });
    const keys: number[] = [];
    for (const [i, accountId] of [busy.id, busy.id, busy.id, other.id].entries()) {
      keys.push((await storage.apiKeys.create({ accountId, hash: String(i).repeat(64), start: `so_prod_000${i}`, createdAt: AT, scopes: ['logs:read'] })).id);
    }
    const [used, quiet, unused, theirs] = keys;
    const client = new pg.Client({ connectionString: config.url });
    // The database is dropped WITH (FORCE) after the test, which may end this connection first.
    client.on('error', () => undefined);
    await client.connect();
    t.after(() => client.end().catch(() => undefined));
    // 90 % to the busy account over a day; GET, POST, DELETE and a few HEAD; 3 % 4xx, a few 5xx; order ids 1 to 3,000.
    await client.query(
      `INSERT INTO request_logs (account_id, at, method, path, status, duration_ms, request_id, key_id)
       SELECT CASE WHEN g % 10 = 0 THEN $1::bigint ELSE $2::bigint END,
              $3::timestamptz + g * interval '2 seconds',
              CASE WHEN g % 500 = 7 THEN 'HEAD' WHEN g % 10 IN (1, 2) THEN 'POST' WHEN g % 10 = 3 THEN 'DELETE' ELSE 'GET' END,
              CASE WHEN g % 10 IN (1, 2) THEN '/v2/store/orders' WHEN g % 10 IN (3, 4) THEN '/v1/store/orders/' || (g % 3000) ELSE '/v1/store/orders' END,
              CASE WHEN g % 997 = 0 THEN 500 WHEN g % 33 = 0 THEN 409 WHEN g % 10 IN (1, 2) THEN 201 WHEN g % 10 = 3 THEN 204 ELSE 200 END,
              1.5, 'req-' || g,
              CASE WHEN g % 10 = 0 THEN $4::bigint WHEN g % 100 = 1 THEN $5::bigint ELSE $6::bigint END
       FROM generate_series(1, ${ROWS}) AS g`,
      [other.id, busy.id, AT, theirs, quiet, used],
    );
    await client.query('ANALYZE request_logs');

    // The repository's own statements, each remembered for its EXPLAIN.
    const pool = createPostgresPool({ url: config.url, poolSize: 1 });
    t.after(() => pool.end());
    let last = { text: '', values: [] as readonly unknown[] };
    const repository = createPostgresRequestLogsRepository((text, values) => {
      last = { text, values: values ?? [] };
      return pool.sql(text, values);
    });
    const plan = async (label: string, run: () => Promise<unknown>) => {
      await run();
      const { rows } = await client.query<{ 'QUERY PLAN': string }>(`EXPLAIN (COSTS OFF) ${last.text}`, [...last.values]);
      const text = rows.map((row) => row['QUERY PLAN']).join('\n');
      assert.doesNotMatch(text, /Seq Scan on request_logs/, `${label}:\n${text}`);
      return text;
    };
    const page = (filters: RequestLogFilters) => () => repository.listPage({ accountId: busy.id, filters, limit: 51 });
    const reads = async (label: string, filters: RequestLogFilters, index: string) => {
      const text = await plan(label, page(filters));
      assert.match(text, new RegExp(`Index (Only )?Scan using ${index} on request_logs`), `${label}:\n${text}`);
    };
    const walks = async (label: string, filters: RequestLogFilters, before?: { at: string; id: bigint }) => {
      const text = await plan(label, () => repository.listPage({ accountId: busy.id, filters, limit: 51, ...(before === undefined ? {} : { before }) }));
      // The account's walk, or for an account that holds most of the table the pruning's (at) walked the same way; an
      // Incremental Sort orders only entries of the same instant by id. Never a Sort of everything read.
      assert.match(text, /Index Scan (Backward )?using request_logs_(account_time|account_errors|at) on request_logs/, `${label}:\n${text}`);
      assert.doesNotMatch(text, /(^|-> {2})Sort\b/m, `${label}:\n${text}`);
    };

    await reads('a key that made no request', { keyId: unused }, 'request_logs_account_key');
    await reads('a method never used', { method: 'PUT' }, 'request_logs_account_method');
    await reads('a status never answered', { status: { min: 418, max: 418 } }, 'request_logs_account_status');
    await reads('a status class never answered', { status: { min: 300, max: 399 } }, 'request_logs_account_status');
    await reads('a path nobody used', { pathPrefix: '/v3/nothing' }, 'request_logs_account_path');
    await reads('one order\'s path', { pathPrefix: '/v1/store/orders/1234' }, 'request_logs_account_path');
    await reads('a request id', { requestId: 'req-12345' }, 'request_logs_account_request');

    const [oldest] = await repository.listPage({ accountId: busy.id, filters: { until: new Date(Date.parse(AT) + ROWS * 1000).toISOString() }, limit: 1 });
    assert.ok(oldest !== undefined);
    await walks('no filter', {});
    await walks('no filter, from a cursor', {}, { at: oldest.at, id: oldest.id });
    await walks('the errors', { status: { min: 400, max: 499 } });
    await walks('a common method', { method: 'GET' });
    await walks('the busiest key', { keyId: used });
    await walks('a common path prefix', { pathPrefix: '/v1/store/orders' });
    await walks('a time range', { since: AT, until: new Date(Date.parse(AT) + 3_600_000).toISOString() });

    const order = await plan('an order\'s requests', () => repository.listForOrder({ accountId: busy.id, orderId: 1234n, limit: 51 }));
    assert.match(order, /Index Scan using request_logs_account_order on request_logs/, order);
  });
});
