/**
 * The request logs part of the storage contract, the same cases on every
 * adapter: entries are appended in batches and read back as written, newest
 * first by (at, id), per account, through every filter and from a position;
 * one is found by id within its account only; pruning deletes by age in
 * bounded rounds. And the key lookup the logs need: whose a key is, revoked
 * keys included.
 */
import assert from 'node:assert/strict';
import { describe, test, type TestContext } from 'node:test';
import { API_KEY_SCOPES } from '../../../src/api-keys/api-key-scopes.js';
import { AppError } from '../../../src/errors/errors.js';
import type { NewRequestLog, RequestLog } from '../../../src/request-logs/request-logs-repository.js';
import type { ContractCoverage } from '../../support/storage-contract.js';
import { runSql } from '../../support/raw-sql.js';
import { storageBackends } from '../../support/storage.js';
import { storedRequests } from '../../../src/request-logs/stored-requests.js';

export const CONTRACT_COVERS = {
  requestLogs: ['append', 'listPage', 'findById', 'deleteOlderThan'],
  apiKeys: ['findOwnerByHash'],
} as const satisfies ContractCoverage;

const T0 = Date.parse('2026-11-27T10:00:00.000Z');
const at = (minutes: number) => new Date(T0 + minutes * 60_000).toISOString();

function entry(accountId: number, minutes: number, fields: Partial<NewRequestLog> = {}): NewRequestLog {
  return { accountId, at: at(minutes), method: 'GET', path: '/v1/store/orders', status: 200, durationMs: 1.25, requestId: `req-${minutes}`, ...fields };
}

const ids = (logs: readonly RequestLog[]) => logs.map((log) => log.requestId);

for (const backend of storageBackends({ postgresDirect: true })) {
  describe(`request logs storage contract: ${backend.name}`, () => {
    async function setUp(t: TestContext) {
      const { storage } = await backend.freshDatabase(t);
      const account = await storage.accounts.create({ name: 'Main Street Pets', createdAt: at(0) });
      const other = await storage.accounts.create({ name: 'Harbour Pets', createdAt: at(0) });
      const key = await storage.apiKeys.create({ accountId: account.id, hash: 'a'.repeat(64), start: 'so_prod_abcd', createdAt: at(0), scopes: API_KEY_SCOPES });
      return { storage, account, other, key };
    }

    test('when entries are appended, then each is read back as written, with its key\'s start, and absent fields stay absent', async (t) => {
      const { storage, account, key } = await setUp(t);
      const full: NewRequestLog = {
        ...entry(account.id, 1),
        method: 'DELETE',
        path: '/v2/store/orders/9007199254740993?x=1',
        status: 409,
        errorCode: 'order_already_shipped',
        durationMs: 3.5,
        keyId: key.id,
        clientAddress: '2001:db8::9',
        userAgent: 'curl/8.5 ünïcödé',
        apiVersion: 'v2',
        errorBody: '{"code":"order_already_shipped","message":"It shipped.","status":409}',
      };
      const bare = entry(account.id, 0);
      await storage.requestLogs.append(storedRequests([bare, full]), []);
      await storage.requestLogs.append(storedRequests([]), []);
      const [newest, oldest] = await storage.requestLogs.listPage({ accountId: account.id, filters: {}, limit: 10 });
      assert.ok(newest !== undefined && oldest !== undefined);
      assert.deepEqual(newest, { ...full, id: newest.id, keyStart: 'so_prod_abcd' });
      assert.deepEqual(oldest, { ...bare, id: oldest.id });
      assert.equal(typeof newest.id, 'bigint');
      assert.deepEqual(await storage.requestLogs.findById(account.id, newest.id), newest);
    });

    test('when one append carries many rows, every field set on some and absent on others, then every row is read back as written, in the order given', async (t) => {
      const { storage, account, key } = await setUp(t);
      const entries = Array.from({ length: 37 }, (_, i): NewRequestLog => {
        const base = entry(account.id, i, { requestId: `many-${i}`, durationMs: i / 8 });
        if (i % 2 === 0) return base;
        return {
          ...base,
          method: 'POST',
          path: `/v2/store/orders/${i}?limit=${i}`,
          status: 400 + i,
          errorCode: `code_${i}`,
          keyId: key.id,
          clientAddress: `10.0.0.${i}`,
          userAgent: `agent ${i}`,
          apiVersion: 'v2',
          errorBody: `{"code":"code_${i}","status":${400 + i}}`,
        };
      });
      await storage.requestLogs.append(storedRequests(entries), []);
      const read = await storage.requestLogs.listPage({ accountId: account.id, filters: {}, limit: 100 });
      assert.deepEqual(
        read.map((log) => {
          const written: Partial<RequestLog> = { ...log };
          delete written.id;
          delete written.keyStart;
          return written;
        }),
        [...entries].reverse(),
      );
      assert.ok(read.every((log) => (log.keyId === undefined ? log.keyStart === undefined : log.keyStart === 'so_prod_abcd')));
    });

    test('when an entry names an unknown account, then the append fails with account_not_found', async (t) => {
      const { storage } = await setUp(t);
      await assert.rejects(storage.requestLogs.append(storedRequests([entry(999_999, 0)]), []), (error: unknown) => error instanceof AppError && error.code === 'account_not_found');
    });

    test('when two accounts have entries, then each lists and finds only its own', async (t) => {
      const { storage, account, other } = await setUp(t);
      await storage.requestLogs.append(storedRequests([entry(account.id, 0), entry(other.id, 1, { requestId: 'theirs' })]), []);
      assert.deepEqual(ids(await storage.requestLogs.listPage({ accountId: account.id, filters: {}, limit: 10 })), ['req-0']);
      const [theirs] = await storage.requestLogs.listPage({ accountId: other.id, filters: {}, limit: 10 });
      assert.ok(theirs !== undefined);
      assert.equal(await storage.requestLogs.findById(account.id, theirs.id), undefined);
      assert.equal(await storage.requestLogs.findById(account.id, 9_999_999n), undefined);
    });

    test('when pages are read from a position, then the walk is newest first by time, then id, and sees every entry once', async (t) => {
      const { storage, account } = await setUp(t);
      // Two entries at the same instant, written out of time order: time orders first, the id breaks the tie.
      await storage.requestLogs.append(storedRequests([entry(account.id, 2), entry(account.id, 1, { requestId: 'tie-a' }), entry(account.id, 1, { requestId: 'tie-b' }), entry(account.id, 3)]), []);
      const all = await storage.requestLogs.listPage({ accountId: account.id, filters: {}, limit: 10 });
      assert.deepEqual(ids(all), ['req-3', 'req-2', 'tie-b', 'tie-a']);
      const seen: string[] = [];
      let before: { at: string; id: bigint } | undefined;
      for (;;) {
        const page = await storage.requestLogs.listPage({ accountId: account.id, filters: {}, limit: 1, ...(before === undefined ? {} : { before }) });
        const last = page.at(-1);
        if (last === undefined) break;
        seen.push(...ids(page));
        before = { at: last.at, id: last.id };
      }
      assert.deepEqual(seen, ids(all));
    });

    test('when filters are given, then only matching entries are listed, each filter and their combination', async (t) => {
      const { storage, account, key } = await setUp(t);
      await storage.requestLogs.append(storedRequests([
        entry(account.id, 0),
        entry(account.id, 1, { method: 'DELETE', path: '/v1/store/orders/7', status: 409, errorCode: 'order_already_shipped', keyId: key.id, requestId: 'r409' }),
        entry(account.id, 2, { method: 'DELETE', path: '/v1/store/orders/8', status: 404, keyId: key.id, requestId: 'r404' }),
        entry(account.id, 3, { path: '/v2/audit-events', status: 500, requestId: 'r500' }),
        entry(account.id, 4, { path: '/v1/store/orders%', requestId: 'percent' }),
      ]), []);
      const list = async (filters: Parameters<typeof storage.requestLogs.listPage>[0]['filters']) =>
        ids(await storage.requestLogs.listPage({ accountId: account.id, filters, limit: 10 }));
      assert.deepEqual(await list({ status: { min: 400, max: 499 } }), ['r404', 'r409']);
      assert.deepEqual(await list({ status: { min: 409, max: 409 } }), ['r409']);
      assert.deepEqual(await list({ status: { min: 500, max: 599 } }), ['r500']);
      assert.deepEqual(await list({ method: 'DELETE' }), ['r404', 'r409']);
      assert.deepEqual(await list({ pathPrefix: '/v1/store/orders/' }), ['r404', 'r409']);
      // A prefix is text, not a pattern: % and _ match themselves only.
      assert.deepEqual(await list({ pathPrefix: '/v1/store/orders%' }), ['percent']);
      assert.deepEqual(await list({ requestId: 'r500' }), ['r500']);
      assert.deepEqual(await list({ keyId: key.id }), ['r404', 'r409']);
      assert.deepEqual(await list({ since: at(1), until: at(3) }), ['r404', 'r409']);
      assert.deepEqual(await list({ method: 'DELETE', status: { min: 400, max: 499 }, since: at(2) }), ['r404']);
    });

    test('when the filters read entries through indexes, then each lists exactly the entries that match, paths beyond ASCII and pattern characters included', async (t) => {
      const { storage, config } = await backend.freshDatabase(t);
      // On PostgreSQL directly, sequential scans off for this database's sessions (the storage has opened none yet), so that
      // each filter is read through an index (migration 0030): a path prefix as a text_pattern_ops range, a key, a method,
      // a status by theirs. Behind PgBouncer a pooled server session could predate the setting: the same cases, as planned.
      if (config.kind === 'postgres' && backend.name === 'postgres') {
        await runSql(config, `ALTER DATABASE "${decodeURIComponent(new URL(config.url).pathname.slice(1))}" SET enable_seqscan = off`);
      }
      const account = await storage.accounts.create({ name: 'Main Street Pets', createdAt: at(0) });
      const key = await storage.apiKeys.create({ accountId: account.id, hash: 'b'.repeat(64), start: 'so_prod_efgh', createdAt: at(0), scopes: API_KEY_SCOPES });
      const paths = ['/v1/pets/é', '/v1/pets/éclair', '/v1/pets/e', '/v1/pets/É', '/v1/pets/~', '/v1/pets/~x', '/v1/store/orders_', '/v1/store/ordersZ', '/V1/store/orders', '/v1/store/orders'];
      const entries = paths.map((path, i) =>
        entry(account.id, i, { path, requestId: `p${i}`, ...(i % 3 === 0 ? { keyId: key.id } : {}), ...(i === 4 ? { method: 'HEAD', status: 503 } : {}) }),
      );
      await storage.requestLogs.append(storedRequests(entries), []);
      const list = async (filters: Parameters<typeof storage.requestLogs.listPage>[0]['filters']) =>
        ids(await storage.requestLogs.listPage({ accountId: account.id, filters, limit: 50 }));
      const newestFirst = (match: (e: NewRequestLog) => boolean) => entries.filter(match).reverse().map((e) => e.requestId);
      for (const prefix of ['/v1/pets/é', '/v1/pets/e', '/v1/pets/É', '/v1/pets/~', '/v1/pets/', '/v1/store/orders_', '/v1/store/orders', '/V1', '/v3']) {
        assert.deepEqual(await list({ pathPrefix: prefix }), newestFirst((e) => e.path.startsWith(prefix)), prefix);
      }
      assert.deepEqual(await list({ pathPrefix: '/v1/pets/é' }), ['p1', 'p0']);
      assert.deepEqual(await list({ keyId: key.id }), newestFirst((e) => e.keyId === key.id));
      assert.deepEqual(await list({ keyId: key.id + 1000 }), []);
      assert.deepEqual(await list({ method: 'HEAD' }), ['p4']);
      assert.deepEqual(await list({ method: 'PUT' }), []);
      assert.deepEqual(await list({ status: { min: 500, max: 599 } }), ['p4']);
      assert.deepEqual(await list({ status: { min: 418, max: 418 } }), []);
      assert.deepEqual(await list({ status: { min: 300, max: 399 } }), []);
      assert.deepEqual(await list({ pathPrefix: '/v1/pets/', keyId: key.id, status: { min: 200, max: 299 } }), ['p3', 'p0']);
    });

    test('when many batches overlap in time and one append holds more than a batch, then every page walk, filtered or not, sees exactly the matching entries, newest first, each once', async (t) => {
      const { storage, account, other, key } = await setUp(t);
      // Arrival times out of write order and repeated (slow requests written with a later batch), 3 appends, the
      // second larger than SQLite's 4,096 entries per batch, two accounts interleaved.
      const written: RequestLog[] = [];
      let n = 0;
      for (const size of [300, 4500, 200]) {
        const batch = Array.from({ length: size }, (): NewRequestLog => {
          const i = n++;
          const mine = i % 5 !== 0;
          return entry(mine ? account.id : other.id, 0, {
            at: new Date(T0 + ((i * 7919) % 3000) * 7).toISOString(),
            requestId: `r${i}`,
            method: i % 3 === 0 ? 'DELETE' : 'GET',
            path: i % 4 === 0 ? `/v1/store/orders/${i % 9 + 1}` : '/v2/store/orders?limit=10',
            status: i % 7 === 0 ? 404 : i % 11 === 0 ? 409 : 200,
            ...(i % 2 === 0 ? { keyId: key.id } : {}),
          });
        });
        await storage.requestLogs.append(storedRequests(batch), []);
        written.push(...batch.map((e) => ({ ...e, id: 0n })));
      }
      const walk = async (filters: Parameters<typeof storage.requestLogs.listPage>[0]['filters'], limit: number) => {
        const seen: RequestLog[] = [];
        let before: { at: string; id: bigint } | undefined;
        for (;;) {
          const page = await storage.requestLogs.listPage({ accountId: account.id, filters, limit, ...(before === undefined ? {} : { before }) });
          seen.push(...page);
          const last = page.at(-1);
          if (last === undefined || page.length < limit) return seen;
          before = { at: last.at, id: last.id };
        }
      };
      // The model: the account's entries, newest first by time and then by write order (ids grow with it).
      const order = new Map(written.map((e, i) => [e.requestId, i]));
      const expected = (match: (e: RequestLog) => boolean) =>
        written
          .filter((e) => e.accountId === account.id && match(e))
          .sort((a, b) => (a.at === b.at ? (order.get(b.requestId) ?? 0) - (order.get(a.requestId) ?? 0) : a.at > b.at ? -1 : 1))
          .map((e) => e.requestId);
      const cases: [Parameters<typeof storage.requestLogs.listPage>[0]['filters'], (e: RequestLog) => boolean, number][] = [
        [{}, () => true, 250],
        [{ status: { min: 400, max: 499 } }, (e) => e.status >= 400 && e.status <= 499, 97],
        [{ status: { min: 409, max: 409 } }, (e) => e.status === 409, 40],
        [{ method: 'DELETE', keyId: key.id }, (e) => e.method === 'DELETE' && e.keyId === key.id, 100],
        [{ pathPrefix: '/v1/store/orders/3' }, (e) => e.path.startsWith('/v1/store/orders/3'), 7],
        [{ requestId: 'r4321' }, (e) => e.requestId === 'r4321', 10],
        [{ since: at(0.2), until: at(0.3) }, (e) => e.at >= at(0.2) && e.at < at(0.3), 33],
      ];
      for (const [filters, match, limit] of cases) {
        const seen = await walk(filters, limit);
        assert.deepEqual(ids(seen), expected(match), JSON.stringify(filters));
        assert.equal(new Set(seen.map((e) => e.id)).size, seen.length, 'no id twice');
      }
      const one = (await walk({ requestId: 'r4321' }, 1))[0];
      assert.ok(one !== undefined);
      assert.deepEqual(await storage.requestLogs.findById(account.id, one.id), one);
      assert.deepEqual(
        ids(await storage.requestLogs.listForOrder({ accountId: account.id, orderId: 3n, limit: 1000 })),
        expected((e) => /^\/v1\/store\/orders\/3$/.test(e.path)),
      );
      // Pruned in small rounds from the middle of the span: exactly the older entries go, the rest keep their ids.
      const cut = at(0.25);
      const before = await walk({}, 1000);
      let deleted = 0;
      for (let round = await storage.requestLogs.deleteOlderThan(cut, 700); round > 0; round = await storage.requestLogs.deleteOlderThan(cut, 700)) {
        assert.ok(round <= 700);
        deleted += round;
      }
      assert.equal(deleted, written.filter((e) => e.at < cut).length);
      assert.deepEqual(await walk({}, 1000), before.filter((e) => e.at >= cut));
      const gone = before.find((e) => e.at < cut);
      assert.ok(gone !== undefined);
      assert.equal(await storage.requestLogs.findById(account.id, gone.id), undefined);
    });

    test('when old entries are pruned in bounded rounds, then only those older than the instant go, any account', async (t) => {
      const { storage, account, other } = await setUp(t);
      await storage.requestLogs.append(storedRequests([entry(account.id, 0), entry(other.id, 1), entry(account.id, 2), entry(account.id, 10)]), []);
      assert.equal(await storage.requestLogs.deleteOlderThan(at(5), 2), 2);
      assert.equal(await storage.requestLogs.deleteOlderThan(at(5), 2), 1);
      assert.equal(await storage.requestLogs.deleteOlderThan(at(5), 2), 0);
      assert.deepEqual(ids(await storage.requestLogs.listPage({ accountId: account.id, filters: {}, limit: 10 })), ['req-10']);
      assert.deepEqual(ids(await storage.requestLogs.listPage({ accountId: other.id, filters: {}, limit: 10 })), []);
    });

    test('when entries are pruned out of order of their ids, then a pruned entry\'s id never names a later entry', async (t) => {
      const { storage, account, other } = await setUp(t);
      // One append: the account's entries at minutes 1 and 10, the other's at 5 (SQLite: batches 1 and 2).
      await storage.requestLogs.append(storedRequests([entry(account.id, 1, { requestId: 'a-old' }), entry(account.id, 10, { requestId: 'a-young' }), entry(other.id, 5, { requestId: 'b-old' })]), []);
      const [oldest] = await storage.requestLogs.listPage({ accountId: other.id, filters: {}, limit: 1 });
      assert.ok(oldest !== undefined);
      // The other account's entry goes, and with it the highest id written so far; the account's older entry too.
      assert.equal(await storage.requestLogs.deleteOlderThan(at(8), 100), 2);
      await storage.requestLogs.append(storedRequests([entry(other.id, 20, { requestId: 'b-later' })]), []);
      assert.equal(await storage.requestLogs.findById(other.id, oldest.id), undefined);
      const [later] = await storage.requestLogs.listPage({ accountId: other.id, filters: {}, limit: 1 });
      assert.ok(later !== undefined && later.id > oldest.id);
      assert.deepEqual(ids(await storage.requestLogs.listPage({ accountId: account.id, filters: {}, limit: 10 })), ['a-young']);
    });

    test('when a key is looked up by hash for its owner, then it is found revoked or not, and an unknown hash is not', async (t) => {
      const { storage, account, key } = await setUp(t);
      assert.deepEqual(await storage.apiKeys.findOwnerByHash('a'.repeat(64)), { keyId: key.id, accountId: account.id });
      assert.equal(await storage.apiKeys.revoke(key.id, at(1)), 'revoked');
      assert.deepEqual(await storage.apiKeys.findOwnerByHash('a'.repeat(64)), { keyId: key.id, accountId: account.id });
      assert.equal(await storage.apiKeys.findOwnerByHash('c'.repeat(64)), undefined);
    });
  });
}
