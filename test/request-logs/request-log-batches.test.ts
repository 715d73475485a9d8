/**
 * How SQLite packs a batch of request logs (sqlite-request-log-batches.ts):
 * column by column, times as milliseconds into the batch's window, durations as whole
 * microseconds, request ids once, in the batch's list; and every entry
 * reads back exactly as written, including the ones that do not fit that
 * form (a time in another form or window, a finer duration, a request id
 * with a newline), and through the repository's filter by request id.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import type { NewRequestLog } from '../../src/request-logs/request-logs-repository.js';
import { asWritten, BATCH_ENTRIES_MAX, packEntries, unpackBatch } from '../../src/storage/sqlite/sqlite-request-log-batches.js';
import { sqliteBackend } from '../support/storage.js';
import { Database } from '../../src/storage/sqlite/sqlite-driver.js';
import { storedRequests } from '../../src/request-logs/stored-requests.js';

const entry = (at: string, requestId: string, more: Partial<NewRequestLog> = {}): NewRequestLog => ({
  accountId: 7,
  at,
  method: 'GET',
  path: '/v1/store/orders',
  status: 200,
  durationMs: 0.213,
  requestId,
  ...more,
});

/** What unpacking returns for entries packed as batch `batchId`: each with its id, nulls kept. */
const withIds = (batchId: bigint, entries: (NewRequestLog | null)[]) =>
  entries.map((written, position) => (written === null ? null : { id: batchId * BigInt(BATCH_ENTRIES_MAX) + BigInt(position), ...written }));

describe('request logs on SQLite: the packed form of a batch', () => {
  test('when a batch of ordinary entries is packed, then it is stored column by column: times as offsets into the window, durations whole microseconds, texts once, request ids in UUID form as 16 bytes, the others in their entry and the list', () => {
    const entries = [
      entry('2026-11-28T10:42:17.123Z', 'f3b0c4a2-0000-4000-8000-000000000001', { keyId: 3, clientAddress: '10.0.0.1', userAgent: 'wrk/4', apiVersion: 'v1' }),
      entry('2026-11-28T10:42:17.123Z', 'f3b0c4a2-0000-4000-8000-000000000002', { durationMs: 12.5 }),
      null,
      entry('2026-11-28T10:42:19.999Z', 'req-3', { status: 409, errorCode: 'order_already_cancelled', errorBody: '{"code":"order_already_cancelled","status":409}' }),
    ];
    const { columns } = packEntries(entries);
    const stored = JSON.parse(columns.entries) as Record<string, unknown>;
    assert.equal(stored.w, Date.parse('2026-11-28T10:42:10.000Z'));
    // Column by column, texts by their index in s; a pruned entry's time null; a column every entry has the same value in
    // (m, p) that value alone; no column for what no entry has. A pruned entry's other values are never read.
    assert.deepEqual(stored.s, ['GET', '/v1/store/orders', '10.0.0.1', 'wrk/4', 'v1', 'order_already_cancelled']);
    assert.deepEqual(
      { t: stored.t, m: stored.m, p: stored.p, c: stored.c, d: stored.d, k: stored.k, a: stored.a, u: stored.u, v: stored.v, x: stored.x },
      { t: [7123, 7123, null, 9999], m: 0, p: 1, c: [200, 200, 200, 409], d: [213, 12500, null, 213], k: [3, null, null, null], a: [2, null, null, null], u: [3, null, null, null], v: [4, null, null, null], x: [null, null, null, 5] },
    );
    assert.deepEqual(Object.keys(stored).sort(), ['a', 'b', 'c', 'd', 'k', 'm', 'p', 'r', 's', 't', 'u', 'v', 'w', 'x']);
    assert.deepEqual(stored.r, [null, null, null, 'req-3']);
    assert.ok(!columns.entries.includes('f3b0c4a2') && !columns.request_ids.includes('f3b0c4a2'), columns.entries);
    assert.equal(columns.request_ids, '\nreq-3\n');
    // Big-endian words at each entry's position; zeros where the id is not a UUID or the position pruned.
    assert.equal(Buffer.from(columns.request_uuids ?? []).toString('hex'), `f3b0c4a2000040008000000000000001f3b0c4a2000040008000000000000002${'0'.repeat(64)}`);
    assert.deepEqual(unpackBatch(5n, 7, columns.entries, columns.request_ids, columns.request_uuids), withIds(5n, entries));
  });

  test('when entries do not fit the short form, then each is kept whole and reads back exactly', () => {
    const entries = [
      // Not the stored form, another window, before the epoch: the time as text.
      entry('2026-11-28T10:42:17Z', 'a'),
      entry('2026-11-28T10:42:27.000Z', 'b'),
      entry('2026-11-28T10:42:11.000Z', 'c'),
      entry('1969-12-31T23:59:59.999Z', 'd'),
      // Finer than a microsecond, and negative: the duration as it is.
      entry('2026-11-28T10:42:12.000Z', 'e', { durationMs: 0.1234567 }),
      entry('2026-11-28T10:42:12.000Z', 'f', { durationMs: -1 }),
      // A request id with a newline or a surrogate is in its entry (SQLite's text would turn a lone one into U+FFFD); an empty one is listed as any other.
      entry('2026-11-28T10:42:13.000Z', 'two\nlines'),
      entry('2026-11-28T10:42:13.000Z', 'lone \uD800'),
      entry('2026-11-28T10:42:13.000Z', 'pair \uD83D\uDC3E'),
      entry('2026-11-28T10:42:13.000Z', ''),
    ];
    const { columns } = packEntries(entries);
    // The ids that can be lines, each once: the empty one too.
    assert.equal(columns.request_ids, '\na\nb\nc\nd\ne\nf\n\n');
    assert.deepEqual(unpackBatch(1n, 7, columns.entries, columns.request_ids, columns.request_uuids), withIds(1n, entries));
  });

  test('when an entry has a duration that is not finite, then its batch still reads back, that duration as null as JSON has it', () => {
    const entries = [entry('2026-11-28T10:42:17.123Z', 'a', { durationMs: Number.POSITIVE_INFINITY }), entry('2026-11-28T10:42:17.124Z', 'b')];
    const { columns } = packEntries(entries);
    const [infinite, plain] = unpackBatch(1n, 7, columns.entries, columns.request_ids, columns.request_uuids);
    assert.deepEqual(infinite, { ...withIds(1n, entries)[0], durationMs: null });
    assert.deepEqual(plain, withIds(1n, entries)[1]);
  });

  test('when entries are packed, whichever columns they share and whichever positions are pruned, then every entry reads back exactly', () => {
    const pick = <T>(...values: T[]) => fc.constantFrom(...values);
    const written = fc.record(
      {
        at: pick('2026-11-28T10:42:17.123Z', '2026-11-28T10:42:18.004Z', '2026-11-28T10:43:00.000Z'),
        requestId: pick('f3b0c4a2-0000-4000-8000-000000000001', 'r-2', 'r\n3'),
        method: pick('GET', 'POST'),
        path: pick('/v1/store/orders', '/v2/store/orders/12', '/v2/store/orders/13'),
        status: pick(200, 409),
        durationMs: pick(0.213, 4),
        keyId: pick(3, 4),
        clientAddress: pick('10.0.0.1', '::1'),
        userAgent: pick('wrk/4', 'curl/8'),
        apiVersion: pick('v1' as const, 'v2' as const),
        errorCode: pick('order_already_cancelled'),
        errorBody: pick('{"status":409}', '{}'),
      },
      { requiredKeys: ['at', 'requestId', 'method', 'path', 'status', 'durationMs'] },
    );
    const batch = fc.array(fc.option(written.map((fields) => ({ accountId: 7, ...fields }) as NewRequestLog), { nil: null, freq: 4 }), { minLength: 1, maxLength: 12 }).filter((entries) => entries.some((e) => e !== null));
    fc.assert(
      fc.property(batch, (entries) => {
        const { columns, orders } = packEntries(entries);
        assert.deepEqual(unpackBatch(3n, 7, columns.entries, columns.request_ids, columns.request_uuids), withIds(3n, entries));
        // The summaries a filter reads hold every distinct value once, whatever order they come in (A, B, A; a key, none, the key).
        const kept = entries.filter((e): e is NewRequestLog => e !== null);
        const listed = (text: string) => new Set(text.split('\n').filter((line) => line !== ''));
        const distinct = <T>(values: T[]) => new Set(values.map(String));
        assert.deepEqual(listed(columns.paths), distinct(kept.map((e) => e.path)));
        assert.deepEqual(listed(columns.key_ids), distinct(kept.flatMap((e) => (e.keyId === undefined ? [] : [e.keyId]))));
        assert.deepEqual(listed(columns.statuses), distinct(kept.map((e) => e.status)));
        assert.deepEqual(listed(columns.methods), distinct(kept.map((e) => e.method)));
        assert.deepEqual(new Set(orders), new Set(kept.flatMap((e) => /^\/v2\/store\/orders\/(\d+)$/.exec(e.path)?.slice(1).map(BigInt) ?? [])));
        assert.equal(columns.paths.split('\n').length - 2, listed(columns.paths).size, 'each path listed once');
      }),
      { numRuns: 400 },
    );
  });

  test('when a batch is pruned in part and packed again, then every kept entry reads back as it was, and the columns its entries share stay single values', () => {
    const written = [
      entry('2026-11-28T10:42:11.000Z', 'a'),
      entry('2026-11-28T10:42:12.000Z', 'b'),
      entry('2026-11-28T10:42:13.000Z', 'c', { durationMs: Number.POSITIVE_INFINITY }),
      // Times an older release's rows may hold: not ISO 8601, and without a zone (never read as local time).
      entry('garbage', 'd'),
      entry('2026-11-28 10:42:14', 'e'),
      entry('2026-11-28T10:42:15.000Z', 'f'),
    ];
    const first = packEntries(written).columns;
    const read = unpackBatch(6n, 7, first.entries, first.request_ids, first.request_uuids);
    // The pruning takes the oldest positions first.
    const kept = read.map((entry, position) => (entry === null || position < 2 ? null : asWritten(entry)));
    const again = packEntries(kept).columns;
    const expected = withIds(6n, written).map((entry, position) => (entry === null || position < 2 ? null : position === 2 ? { ...entry, durationMs: null } : entry));
    assert.deepEqual(unpackBatch(6n, 7, again.entries, again.request_ids, again.request_uuids), expected);
    const stored = JSON.parse(again.entries) as Record<string, unknown>;
    assert.deepEqual({ m: stored.m, p: stored.p, c: stored.c }, { m: 0, p: 1, c: 200 });
    assert.deepEqual([again.first_at, again.last_at], ['2026-11-28 10:42:14', 'garbage'], 'the span compares times as text, as before');
  });

  test('when a batch was packed with every column laid out per position (the form before uniform columns), then it still reads back', () => {
    const entries = JSON.stringify({ w: Date.parse('2026-11-28T10:42:10.000Z'), s: ['GET', '/v1/store/orders'], t: [7123, null, 7124], m: [0, null, 0], p: [1, null, 1], c: [200, null, 200], d: [213, null, 400], k: [3, null, 3] });
    assert.deepEqual(unpackBatch(4n, 7, entries, '\nr1\n\nr2\n', null), withIds(4n, [entry('2026-11-28T10:42:17.123Z', 'r1', { keyId: 3 }), null, entry('2026-11-28T10:42:17.124Z', 'r2', { keyId: 3, durationMs: 0.4 })]));
  });

  test('when a batch was packed in the first form (the request id in each entry, times as text), then it still reads back', () => {
    const entries = JSON.stringify({ s: ['/v1/store/orders'], e: [['2026-11-28T10:42:17.123Z', 'GET', 0, 200, 0.213, 'r1', 3], null] });
    assert.deepEqual(unpackBatch(2n, 7, entries, '\nr1\n', null), [
      { id: 2n * BigInt(BATCH_ENTRIES_MAX), accountId: 7, at: '2026-11-28T10:42:17.123Z', method: 'GET', path: '/v1/store/orders', status: 200, durationMs: 0.213, requestId: 'r1', keyId: 3 },
      null,
    ]);
  });

  test('when logs are filtered by a request id, then the entry is found whether or not its id holds a newline or a lone surrogate', async (t) => {
    const { storage } = await sqliteBackend.freshDatabase(t);
    const account = await storage.accounts.create({ name: 'Main Street Pets', createdAt: '2026-11-28T10:00:00.000Z' });
    const ids = ['plain', 'two\nlines', 'lone \uD800', 'plain-2'];
    await storage.requestLogs.append(storedRequests(ids.map((requestId, i) => ({ ...entry(`2026-11-28T10:42:1${i}.000Z`, requestId), accountId: account.id }))), []);
    for (const requestId of ids) {
      const found = await storage.requestLogs.listPage({ accountId: account.id, filters: { requestId }, limit: 10 });
      assert.deepEqual(
        found.map((log) => log.requestId),
        [requestId],
      );
    }
  });

  test('when logs are filtered by a request id in UUID form, then it is found in a batch of either form (its bytes, or a line of the list before them), and never by another id', async (t) => {
    const { config, storage } = await sqliteBackend.freshDatabase(t);
    assert.equal(config.kind, 'sqlite');
    const account = await storage.accounts.create({ name: 'Main Street Pets', createdAt: '2026-11-28T10:00:00.000Z' });
    const ours = ['0b6e1a52-7c1d-4e0f-9a3b-5d2c8f7e6a10', 'ffffffff-ffff-4fff-bfff-ffffffffffff', '00000000-0000-4000-8000-000000000000'];
    await storage.requestLogs.append(storedRequests(ours.map((requestId, i) => ({ ...entry(`2026-11-28T10:43:1${i}.000Z`, requestId), accountId: account.id }))), []);
    // A batch as written before migration 0034: every id a line of request_ids, no bytes.
    const before = 'a1b2c3d4-0000-4000-8000-00000000beef';
    const db = new Database(config.path);
    t.after(() => db.close());
    db.prepare(
      `INSERT INTO request_log_batches (account_id, first_at, last_at, live, classes, statuses, methods, key_ids, paths, request_ids, entries)
       VALUES (?, '2026-11-28T10:41:01.000Z', '2026-11-28T10:41:01.000Z', 1, 4, '\n200\n', '\nGET\n', '\n', '\n/v1/store/orders\n', ?, ?)`,
    ).run(account.id, `\n${before}\n`, JSON.stringify({ w: Date.parse('2026-11-28T10:41:00.000Z'), s: ['GET', '/v1/store/orders'], t: [1000], m: 0, p: 1, c: 200, d: [213] }));
    for (const requestId of [...ours, before]) {
      const found = await storage.requestLogs.listPage({ accountId: account.id, filters: { requestId }, limit: 10 });
      assert.deepEqual(
        found.map((log) => log.requestId),
        [requestId],
      );
    }
    const none = await storage.requestLogs.listPage({ accountId: account.id, filters: { requestId: '0b6e1a52-7c1d-4e0f-9a3b-5d2c8f7e6a11' }, limit: 10 });
    assert.deepEqual(none, []);
  });
});
