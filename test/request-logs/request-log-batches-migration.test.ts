/**
 * Migration 0033 on a database as the release before left it: SQLite packs
 * the request logs written one row per request into batches of up to 4,096
 * per account; PostgreSQL keeps its rows. Either way every entry reads back
 * as it was written, in the same order, through every filter and the order
 * page, and the logs go on from there.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { API_KEY_SCOPES } from '../../src/api-keys/api-key-scopes.js';
import type { NewRequestLog, RequestLog, RequestLogFilters } from '../../src/request-logs/request-logs-repository.js';
import { schemaBefore } from '../support/migrations.js';
import { readSql, runSql } from '../support/raw-sql.js';
import { storageBackends } from '../support/storage.js';
import { storedRequests } from '../../src/request-logs/stored-requests.js';

const AT = '2026-11-20T10:00:00.000Z';
const T0 = Date.parse(AT);
const quote = (value: string | number | undefined) => (value === undefined ? 'NULL' : typeof value === 'number' ? String(value) : `'${value.replace(/'/g, "''")}'`);

/** The rows of the release before: account 1's and 2's interleaved, more than one batch of account 1, times repeated and out of id order. */
function oldRows(): NewRequestLog[] {
  return Array.from({ length: 5000 }, (_, i): NewRequestLog => {
    const row: NewRequestLog = {
      accountId: i % 6 === 0 ? 2 : 1,
      at: new Date(T0 + ((i * 7919) % 2500) * 3).toISOString(),
      method: i % 3 === 0 ? 'DELETE' : 'GET',
      path: i % 4 === 0 ? `/v1/store/orders/${(i % 5) + 1}` : "/v2/store/orders?limit=10&note=it's",
      status: i % 7 === 0 ? 409 : 200,
      durationMs: i / 16,
      requestId: `old-${i}`,
    };
    if (i % 2 === 0) row.keyId = 1;
    if (i % 3 === 0) row.clientAddress = `10.0.${i % 7}.1`;
    if (i % 5 === 0) row.userAgent = 'checkout/2.1 ünïcödé';
    if (i % 4 !== 1) row.apiVersion = row.path.startsWith('/v1') ? 'v1' : 'v2';
    if (row.status === 409) {
      row.errorCode = 'order_already_cancelled';
      row.errorBody = '{"code":"order_already_cancelled","status":409}';
    }
    return row;
  });
}

for (const backend of storageBackends()) {
  describe(`migration 0033, request logs packed (${backend.name})`, () => {
    test('when 0033 meets request logs of the release before, then each reads back as written, in order, through filters, the order page and pruning, and new ones follow them', async (t) => {
      const { storage, config } = await backend.freshDatabase(t);
      await schemaBefore(config, 33, AT);
      const rows = oldRows();
      await runSql(config, `INSERT INTO accounts (name, created_at) VALUES ('Main Street Pets', '${AT}'), ('Harbour Pets', '${AT}')`);
      for (let start = 0; start < rows.length; start += 1000) {
        const values = rows
          .slice(start, start + 1000)
          .map((r) =>
            [r.accountId, r.at, r.method, r.path, r.status, r.errorCode, r.durationMs, r.requestId, r.keyId, r.clientAddress, r.userAgent, r.apiVersion, r.errorBody]
              .map(quote)
              .join(', '),
          );
        await runSql(
          config,
          `INSERT INTO request_logs (account_id, at, method, path, status, error_code, duration_ms, request_id, key_id, client_address, user_agent, api_version, error_body) VALUES (${values.join('), (')})`,
        );
      }

      assert.ok((await storage.migrate()).applied.includes('0033-request-log-batches'));
      if (config.kind === 'sqlite') {
        assert.deepEqual(await readSql(config, "SELECT name FROM sqlite_master WHERE name = 'request_logs'"), []);
        const batches = await readSql(config, 'SELECT account_id, live FROM request_log_batches ORDER BY id');
        assert.deepEqual(
          batches.map((b) => [Number(b.account_id), Number(b.live)]),
          // In the order of their first rows (account 2's is the very first).
          [
            [2, rows.filter((r) => r.accountId === 2).length],
            [1, 4096],
            [1, rows.filter((r) => r.accountId === 1).length - 4096],
          ],
        );
      }
      const key = await storage.apiKeys.create({ accountId: 1, hash: 'a'.repeat(64), start: 'so_prod_abcd', createdAt: AT, scopes: API_KEY_SCOPES });
      assert.equal(key.id, 1);

      const walk = async (accountId: number, filters: RequestLogFilters, limit = 300) => {
        const seen: RequestLog[] = [];
        let before: { at: string; id: bigint } | undefined;
        for (;;) {
          const page = await storage.requestLogs.listPage({ accountId, filters, limit, ...(before === undefined ? {} : { before }) });
          seen.push(...page);
          const last = page.at(-1);
          if (last === undefined || page.length < limit) return seen;
          before = { at: last.at, id: last.id };
        }
      };
      const written = (log: RequestLog) => {
        const copy: Partial<RequestLog> = { ...log };
        delete copy.id;
        delete copy.keyStart;
        return copy;
      };
      const expected = (accountId: number, match: (r: NewRequestLog) => boolean = () => true) =>
        rows
          .map((r, i) => ({ r, i }))
          .filter(({ r }) => r.accountId === accountId && match(r))
          .sort((a, b) => (a.r.at === b.r.at ? b.i - a.i : a.r.at > b.r.at ? -1 : 1))
          .map(({ r }) => r);

      const all = await walk(1, {});
      assert.deepEqual(all.map(written), expected(1));
      assert.ok(all.every((log) => (log.keyId === 1) === (log.keyStart === 'so_prod_abcd')));
      assert.deepEqual((await walk(2, {})).map(written), expected(2));
      assert.deepEqual((await walk(1, { status: { min: 409, max: 409 }, method: 'DELETE' })).map(written), expected(1, (r) => r.status === 409 && r.method === 'DELETE'));
      assert.deepEqual((await walk(1, { requestId: 'old-4001' })).map(written), expected(1, (r) => r.requestId === 'old-4001'));
      assert.deepEqual((await walk(1, { pathPrefix: '/v2/store/orders?limit=10&note=it', keyId: 1 })).map(written), expected(1, (r) => r.path.startsWith('/v2') && r.keyId === 1));
      const orderPage = await storage.requestLogs.listForOrder({ accountId: 1, orderId: 3n, limit: 5000 });
      assert.deepEqual(orderPage.map(written), expected(1, (r) => r.path === '/v1/store/orders/3'));
      const sample = all[1234];
      assert.ok(sample !== undefined);
      assert.deepEqual(await storage.requestLogs.findById(1, sample.id), sample);

      // New entries follow the migrated ones: their ids are higher, and the newest comes first.
      await storage.requestLogs.append(storedRequests([{ accountId: 1, at: new Date(T0 + 60_000).toISOString(), method: 'GET', path: '/v1/store/orders', status: 200, durationMs: 1, requestId: 'new-1' }]), []);
      const [newest] = await storage.requestLogs.listPage({ accountId: 1, filters: {}, limit: 1 });
      assert.equal(newest?.requestId, 'new-1');
      assert.ok(newest !== undefined && all.every((log) => log.id < newest.id));

      // The migrated entries are pruned as any others.
      let deleted = 0;
      for (let round = -1; round !== 0; deleted += round) round = await storage.requestLogs.deleteOlderThan(new Date(T0 + 60_000).toISOString(), 2000);
      assert.equal(deleted, rows.length);
      assert.deepEqual((await walk(1, {})).map((log) => log.requestId), ['new-1']);
    });
  });
}
