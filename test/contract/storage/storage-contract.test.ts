/**
 * The storage contract: every repository operation, the same cases run once
 * per adapter. An adapter is correct when this suite passes on it.
 */
import assert from 'node:assert/strict';
import { describe, test, type TestContext } from 'node:test';
import type { Account } from '../../../src/accounts/accounts-repository.js';
import { API_KEY_SCOPES } from '../../../src/api-keys/api-key-scopes.js';
import { AppError } from '../../../src/errors/errors.js';
import type { NewOrder } from '../../../src/orders/orders-repository.js';
import { INT64_MAX, INT64_MIN } from '../../../src/shared/int64.js';
import { openStorage } from '../../../src/storage/open-storage.js';
import type { Storage } from '../../../src/storage/storage.js';
import { allMigrations } from '../../support/migrations.js';
import { readSql, runSql } from '../../support/raw-sql.js';
import type { ContractCoverage } from '../../support/storage-contract.js';
import { storageBackends } from '../../support/storage.js';

/** Other repositories and methods have their own files beside this one (see contract-coverage.test.ts). */
export const CONTRACT_COVERS = {
  accounts: ['create', 'list', 'findById'],
  apiKeys: ['create', 'listByAccount', 'findActiveByHash', 'findById', 'revoke', 'roll', 'recordLastUsed'],
  orders: ['create', 'listAll', 'findById', 'changeStatus', 'changeStatusMany', 'ordersVersion'],
} as const satisfies ContractCoverage;

const AT = '2026-11-22T10:00:00.000Z';
const LATER = '2026-11-22T11:30:15.123Z';
const HASH_A = 'a'.repeat(64);
const HASH_B = 'b'.repeat(64);
const HASH_C = 'c'.repeat(64);
const ALL = API_KEY_SCOPES;


function rejectsWith(code: string) {
  return (error: unknown) => {
    assert.ok(error instanceof AppError, `expected an AppError, got ${String(error)}`);
    assert.equal(error.code, code);
    return true;
  };
}

function pending(accountId: number, fields: Partial<NewOrder> = {}): NewOrder {
  return { accountId, complete: false, status: 'pending', createdAt: AT, ...fields };
}

for (const backend of storageBackends({ postgresDirect: true })) {
  describe(`storage contract: ${backend.name}`, () => {
    async function setUp(t: TestContext): Promise<{ storage: Storage; account: Account; other: Account }> {
      const { storage } = await backend.freshDatabase(t);
      const account = await storage.accounts.create({ name: 'Main Street Pets', createdAt: AT });
      const other = await storage.accounts.create({ name: 'Harbour Pets', createdAt: LATER });
      return { storage, account, other };
    }

    describe('accounts', () => {
      test('when accounts are created, then they are returned as stored, listed by id and found by id', async (t) => {
        const { storage, account, other } = await setUp(t);
        assert.deepEqual(account, { id: account.id, name: 'Main Street Pets', createdAt: AT });
        assert.equal(typeof account.id, 'number');
        assert.ok(other.id > account.id);
        assert.deepEqual(await storage.accounts.list(), [account, other]);
        assert.deepEqual(await storage.accounts.findById(other.id), other);
      });

      test('when an account id does not exist, then findById returns undefined', async (t) => {
        const { storage } = await setUp(t);
        assert.equal(await storage.accounts.findById(999_999), undefined);
      });
    });

    describe('api keys', () => {
      test('when a key is created without a name, then name and revokedAt are absent, not null', async (t) => {
        const { storage, account } = await setUp(t);
        const key = await storage.apiKeys.create({ accountId: account.id, hash: HASH_A, start: 'sk_live_abc', createdAt: AT, scopes: ALL });
        assert.deepEqual(key, { id: key.id, accountId: account.id, start: 'sk_live_abc', createdAt: AT, scopes: [...ALL] });
        assert.deepEqual(Object.keys(key).sort(), ['accountId', 'createdAt', 'id', 'scopes', 'start']);
      });

      test('when keys are created, then each account lists only its own, by id, and finds them by hash', async (t) => {
        const { storage, account, other } = await setUp(t);
        const first = await storage.apiKeys.create({ accountId: account.id, name: 'till', hash: HASH_A, start: 'sk_live_aaa', createdAt: AT, scopes: ALL });
        const second = await storage.apiKeys.create({ accountId: other.id, hash: HASH_B, start: 'sk_live_bbb', createdAt: LATER, scopes: ALL });
        assert.equal(first.name, 'till');
        assert.deepEqual(await storage.apiKeys.listByAccount(account.id), [first]);
        assert.deepEqual(await storage.apiKeys.listByAccount(other.id), [second]);
        assert.deepEqual(await storage.apiKeys.findActiveByHash(HASH_A), { keyId: first.id, accountId: account.id, scopes: [...ALL] });
        assert.equal(await storage.apiKeys.findActiveByHash('c'.repeat(64)), undefined);
      });

      test('when a key is created for an unknown account, then it fails with account_not_found', async (t) => {
        const { storage } = await setUp(t);
        await assert.rejects(
          storage.apiKeys.create({ accountId: 999_999, hash: HASH_A, start: 'sk_live_abc', createdAt: AT, scopes: ALL }),
          rejectsWith('account_not_found'),
        );
      });

      test('when a key is revoked, then it is revoked once, already revoked after, and no longer found by hash', async (t) => {
        const { storage, account } = await setUp(t);
        const key = await storage.apiKeys.create({ accountId: account.id, hash: HASH_A, start: 'sk_live_abc', createdAt: AT, scopes: ALL });
        assert.equal(await storage.apiKeys.revoke(key.id, LATER), 'revoked');
        assert.equal(await storage.apiKeys.revoke(key.id, LATER), 'already_revoked');
        assert.equal(await storage.apiKeys.revoke(999_999, LATER), 'not_found');
        assert.equal(await storage.apiKeys.findActiveByHash(HASH_A), undefined);
        assert.deepEqual(await storage.apiKeys.listByAccount(account.id), [{ ...key, revokedAt: LATER }]);
      });

      test('when a key has an expiry and scopes, then they are stored in canonical order and returned by the hash lookup', async (t) => {
        const { storage, account } = await setUp(t);
        const key = await storage.apiKeys.create({
          accountId: account.id, hash: HASH_A, start: 'so_prod_abcd', createdAt: AT, expiresAt: LATER, scopes: ['pets:read', 'orders:read'],
        });
        assert.deepEqual(key.scopes, ['orders:read', 'pets:read']);
        assert.equal(key.expiresAt, LATER);
        assert.deepEqual(await storage.apiKeys.findActiveByHash(HASH_A), {
          keyId: key.id, accountId: account.id, scopes: ['orders:read', 'pets:read'], expiresAt: LATER,
        });
      });

      test('when a key is rolled as seen, then the replacement is stored as given and the old key expires no later than before', async (t) => {
        const { storage, account } = await setUp(t);
        const old = await storage.apiKeys.create({ accountId: account.id, name: 'ci', hash: HASH_A, start: 'so_prod_aaaa', createdAt: AT, expiresAt: '2026-11-23T00:00:00.000Z', scopes: ['orders:read'] });
        const seen = await storage.apiKeys.findById(old.id);
        assert.deepEqual(seen, old);
        if (seen === undefined) return;
        const result = await storage.apiKeys.roll(seen, {
          key: { accountId: seen.accountId, name: seen.name, hash: HASH_B, start: 'so_prod_bbbb', createdAt: LATER, scopes: seen.scopes },
          oldExpiresAt: '2026-11-30T00:00:00.000Z',
        });
        assert.equal(result.outcome, 'rolled');
        if (result.outcome !== 'rolled') return;
        assert.equal(result.old.expiresAt, '2026-11-23T00:00:00.000Z', 'a grace beyond the old expiry does not extend it');
        assert.deepEqual(result.created, { id: result.created.id, accountId: account.id, name: 'ci', start: 'so_prod_bbbb', createdAt: LATER, scopes: ['orders:read'] });
        assert.deepEqual(await storage.apiKeys.listByAccount(account.id), [{ ...old, expiresAt: '2026-11-23T00:00:00.000Z' }, result.created]);

        const shortened = await storage.apiKeys.roll(result.created, {
          key: { accountId: result.created.accountId, hash: HASH_C, start: 'so_prod_cccc', createdAt: LATER, scopes: result.created.scopes },
          oldExpiresAt: LATER,
        });
        assert.equal(shortened.outcome, 'rolled');
        assert.equal((await storage.apiKeys.findActiveByHash(HASH_B))?.expiresAt, LATER);
      });

      test('when a key is no longer as seen (revoked, rolled or its expiry moved), then roll writes nothing and answers changed', async (t) => {
        const { storage, account } = await setUp(t);
        assert.equal(await storage.apiKeys.findById(999_999), undefined);
        const replacement = (hash: string) => ({ key: { accountId: account.id, hash, start: 'so_prod_dddd', createdAt: LATER, scopes: ALL }, oldExpiresAt: LATER });
        const revoked = await storage.apiKeys.create({ accountId: account.id, hash: HASH_A, start: 'so_prod_aaaa', createdAt: AT, scopes: ALL });
        await storage.apiKeys.revoke(revoked.id, AT);
        assert.deepEqual(await storage.apiKeys.roll(revoked, replacement(HASH_C)), { outcome: 'changed' });
        assert.equal((await storage.apiKeys.findById(revoked.id))?.revokedAt, AT, 'findById includes revoked keys');
        const rolled = await storage.apiKeys.create({ accountId: account.id, hash: HASH_B, start: 'so_prod_bbbb', createdAt: AT, expiresAt: '2026-12-31T00:00:00.000Z', scopes: ALL });
        assert.equal((await storage.apiKeys.roll(rolled, replacement(HASH_C))).outcome, 'rolled');
        // Its expiry moved with the first roll: a second roll from the same reading loses.
        assert.deepEqual(await storage.apiKeys.roll(rolled, replacement('d'.repeat(64))), { outcome: 'changed' });
        assert.equal((await storage.apiKeys.listByAccount(account.id)).length, 3);
      });

      test('when last-use times are recorded in a batch, then each key keeps the latest and never moves back', async (t) => {
        const { storage, account } = await setUp(t);
        const a = await storage.apiKeys.create({ accountId: account.id, hash: HASH_A, start: 'so_prod_aaaa', createdAt: AT, scopes: ALL });
        const b = await storage.apiKeys.create({ accountId: account.id, hash: HASH_B, start: 'so_prod_bbbb', createdAt: AT, scopes: ALL });
        await storage.apiKeys.recordLastUsed([]);
        await storage.apiKeys.recordLastUsed([{ id: a.id, at: LATER }, { id: b.id, at: AT }, { id: 999_999, at: AT }]);
        await storage.apiKeys.recordLastUsed([{ id: a.id, at: AT }]);
        assert.deepEqual((await storage.apiKeys.listByAccount(account.id)).map((k) => k.lastUsedAt), [LATER, AT]);
      });
    });

    describe('orders', () => {
      test('when an order is created with every field, then it is returned and found exactly as given', async (t) => {
        const { storage, account } = await setUp(t);
        const order = await storage.orders.create(
          pending(account.id, { id: 7n, petId: 42n, quantity: 3, shipDate: '2026-12-01T10:00:00.250Z', complete: true }),
        );
        const expected = { id: 7n, accountId: account.id, petId: 42n, quantity: 3, shipDate: '2026-12-01T10:00:00.250Z', complete: true, status: 'pending' };
        assert.deepEqual(order, expected);
        assert.deepEqual(await storage.orders.findById(7n), expected);
      });

      test('when optional fields are not given, then they are absent from the order, not null', async (t) => {
        const { storage, account } = await setUp(t);
        const order = await storage.orders.create(pending(account.id, { id: 1n }));
        assert.deepEqual(order, { id: 1n, accountId: account.id, complete: false, status: 'pending' });
        assert.deepEqual(Object.keys((await storage.orders.listAll(account.id))[0] ?? {}).sort(), ['accountId', 'complete', 'id', 'status']);
      });

      test('when ship dates are far apart in time, then each comes back as ISO 8601 UTC with milliseconds', async (t) => {
        const { storage, account } = await setUp(t);
        const dates = ['0001-01-01T00:00:00.000Z', '1999-12-31T23:59:59.999Z', '9999-12-31T23:59:59.999Z'];
        for (const [index, shipDate] of dates.entries()) {
          await storage.orders.create(pending(account.id, { id: BigInt(index + 1), shipDate }));
        }
        assert.deepEqual((await storage.orders.listAll(account.id)).map((o) => o.shipDate), dates);
      });

      test('when no id is given, then storage picks one larger than every existing id', async (t) => {
        const { storage, account } = await setUp(t);
        await storage.orders.create(pending(account.id, { id: 100n }));
        const first = await storage.orders.create(pending(account.id));
        const second = await storage.orders.create(pending(account.id));
        assert.ok(first.id > 100n, `got ${first.id}`);
        assert.ok(second.id > first.id, `got ${second.id} after ${first.id}`);
      });

      test('when many orders are created at once without ids, then each gets its own id', async (t) => {
        const { storage, account } = await setUp(t);
        const orders = await Promise.all(Array.from({ length: 20 }, () => storage.orders.create(pending(account.id))));
        assert.equal(new Set(orders.map((o) => o.id)).size, 20);
        assert.equal((await storage.orders.listAll(account.id)).length, 20);
      });

      test('when the largest id is 2^63-1, then an order without an id still gets an unused one', async (t) => {
        const { storage, account } = await setUp(t);
        await storage.orders.create(pending(account.id, { id: INT64_MAX }));
        const order = await storage.orders.create(pending(account.id));
        assert.notEqual(order.id, INT64_MAX);
        assert.equal((await storage.orders.listAll(account.id)).length, 2);
      });

      test('when ids and pet ids are int64 extremes, then every digit survives create, find, list and change', async (t) => {
        const { storage, account } = await setUp(t);
        const extremes = [2n ** 53n + 1n, INT64_MAX, INT64_MIN, -(2n ** 53n) - 1n];
        for (const value of extremes) {
          const created = await storage.orders.create(pending(account.id, { id: value, petId: value }));
          assert.equal(created.id, value);
          assert.equal(created.petId, value);
          assert.equal((await storage.orders.findById(value))?.petId, value);
        }
        const listed = await storage.orders.listAll(account.id);
        assert.deepEqual(listed.map((o) => o.id), [...extremes].sort((a, b) => (a < b ? -1 : 1)));
        assert.deepEqual(listed.map((o) => o.petId), listed.map((o) => o.id));
        assert.deepEqual(await storage.orders.changeStatus({ id: INT64_MAX, accountId: account.id, from: 'pending', to: 'cancelled', at: LATER }), {
          changed: true,
        });
        assert.equal((await storage.orders.findById(INT64_MAX))?.status, 'cancelled');
        assert.equal((await storage.orders.findById(INT64_MAX - 1n)), undefined);
      });

      test('when orders are listed, then they come by id whatever the creation order', async (t) => {
        const { storage, account } = await setUp(t);
        for (const id of [30n, -5n, 10n, 2n]) await storage.orders.create(pending(account.id, { id }));
        assert.deepEqual((await storage.orders.listAll(account.id)).map((o) => o.id), [-5n, 2n, 10n, 30n]);
        assert.deepEqual((await storage.orders.listActivePage(account.id, undefined, 10)).map((o) => o.id), [-5n, 2n, 10n, 30n]);
      });

      test('when an order is cancelled, then listActivePage leaves it out and listAll keeps it; shipped stays in both', async (t) => {
        const { storage, account } = await setUp(t);
        await storage.orders.create(pending(account.id, { id: 1n }));
        await storage.orders.create(pending(account.id, { id: 2n }));
        await storage.orders.create(pending(account.id, { id: 3n, status: 'shipped' }));
        await storage.orders.changeStatus({ id: 2n, accountId: account.id, from: 'pending', to: 'cancelled', at: LATER });
        assert.deepEqual((await storage.orders.listActivePage(account.id, undefined, 10)).map((o) => o.id), [1n, 3n]);
        assert.deepEqual((await storage.orders.listAll(account.id)).map((o) => [o.id, o.status]), [
          [1n, 'pending'],
          [2n, 'cancelled'],
          [3n, 'shipped'],
        ]);
      });

      test('when an id is already taken, then create fails with order_id_taken and changes nothing', async (t) => {
        const { storage, account, other } = await setUp(t);
        await storage.orders.create(pending(account.id, { id: 5n, quantity: 1 }));
        await assert.rejects(storage.orders.create(pending(other.id, { id: 5n, quantity: 9 })), rejectsWith('order_id_taken'));
        assert.deepEqual(await storage.orders.findById(5n), { id: 5n, accountId: account.id, quantity: 1, complete: false, status: 'pending' });
      });

      test('when the account does not exist, then create fails with account_not_found', async (t) => {
        const { storage } = await setUp(t);
        await assert.rejects(storage.orders.create(pending(999_999, { id: 1n })), rejectsWith('account_not_found'));
        await assert.rejects(storage.orders.create(pending(999_999)), rejectsWith('account_not_found'));
      });

      test('when a write through SQL would leave orders or events without their account, then the database refuses it', async (t) => {
        const { storage, config } = await backend.freshDatabase(t);
        const account = await storage.accounts.create({ name: 'Main Street Pets', createdAt: AT });
        const idle = await storage.accounts.create({ name: 'Harbour Pets', createdAt: LATER });
        await storage.orders.create(pending(account.id, { id: 1n }));
        const eventOf = (accountId: number, position: number) =>
          `INSERT INTO events (account_id, position, id, type, subject, created_at, payload) VALUES (${accountId}, ${position}, 'evt_${accountId}_${position}', 'order.created', 'order:1', '${AT}', '{}')`;
        // The foreign key's refusal on SQLite; PostgreSQL checks per statement with the same SQLSTATE (migration 0011).
        const foreignKeyRefusal = (error: { code?: string }) => ['23503', 'SQLITE_CONSTRAINT_FOREIGNKEY'].includes(error.code ?? '');
        const orderOf = (accountId: number, id: number) =>
          `INSERT INTO orders (id, account_id, complete, status, created_at, updated_at) VALUES (${id}, ${accountId}, false, 'pending', '${AT}', '${AT}')`;
        // An account holding an order and no event: its orders alone keep it.
        const ordersOnly = await storage.accounts.create({ name: 'Orders Only', createdAt: LATER });
        await runSql(config, orderOf(ordersOnly.id, 3));
        const refused = [
          orderOf(999_999, 2),
          'UPDATE orders SET account_id = 999999 WHERE id = 1',
          eventOf(999_999, 1),
          `UPDATE events SET account_id = 999999 WHERE account_id = ${account.id}`,
          `DELETE FROM accounts WHERE id = ${account.id}`,
          `DELETE FROM accounts WHERE id = ${ordersOnly.id}`,
        ];
        for (const statement of refused) {
          await assert.rejects(runSql(config, statement), foreignKeyRefusal, statement);
        }
        assert.deepEqual((await storage.orders.listAll(account.id)).map((order) => order.id), [1n]);
        // An account's events hold it as its orders do; one with neither may go.
        await runSql(config, eventOf(idle.id, 1));
        await assert.rejects(runSql(config, `DELETE FROM accounts WHERE id = ${idle.id}`), foreignKeyRefusal);
        const spare = await storage.accounts.create({ name: 'Spare', createdAt: LATER });
        await runSql(config, `DELETE FROM accounts WHERE id = ${spare.id}`);
        assert.equal(await storage.accounts.findById(spare.id), undefined);
      });

      test('when each account has orders, then each lists only its own', async (t) => {
        const { storage, account, other } = await setUp(t);
        await storage.orders.create(pending(account.id, { id: 1n }));
        await storage.orders.create(pending(other.id, { id: 2n }));
        assert.deepEqual((await storage.orders.listActivePage(account.id, undefined, 10)).map((o) => o.id), [1n]);
        assert.deepEqual((await storage.orders.listAll(other.id)).map((o) => o.id), [2n]);
      });
    });

    describe('orders: conditional status change', () => {
      test('when the order is in `from`, then it changes; when not, then current tells its status', async (t) => {
        const { storage, account } = await setUp(t);
        await storage.orders.create(pending(account.id, { id: 1n }));
        const change = { id: 1n, accountId: account.id, from: 'pending', to: 'shipped', at: LATER } as const;
        assert.deepEqual(await storage.orders.changeStatus(change), { changed: true });
        assert.deepEqual(await storage.orders.changeStatus(change), { changed: false, current: 'shipped' });
        assert.equal((await storage.orders.findById(1n))?.status, 'shipped');
      });

      test('when the order does not exist, then nothing changes and no current status is given', async (t) => {
        const { storage, account } = await setUp(t);
        assert.deepEqual(await storage.orders.changeStatus({ id: 404n, accountId: account.id, from: 'pending', to: 'cancelled', at: LATER }), {
          changed: false,
        });
        assert.deepEqual(await storage.orders.changeStatus({ id: 404n, from: 'pending', to: 'shipped', at: LATER }), { changed: false });
      });

      test("when another account's order is named, then it is not changed and looks absent", async (t) => {
        const { storage, account, other } = await setUp(t);
        await storage.orders.create(pending(other.id, { id: 1n }));
        await storage.orders.create(pending(other.id, { id: 2n, status: 'shipped' }));
        for (const id of [1n, 2n]) {
          assert.deepEqual(await storage.orders.changeStatus({ id, accountId: account.id, from: 'pending', to: 'cancelled', at: LATER }), {
            changed: false,
          });
        }
        assert.deepEqual((await storage.orders.listAll(other.id)).map((o) => o.status), ['pending', 'shipped']);
      });

      test('when no account is given, then the order of any account can change (operator path)', async (t) => {
        const { storage, other } = await setUp(t);
        await storage.orders.create(pending(other.id, { id: 1n }));
        assert.deepEqual(await storage.orders.changeStatus({ id: 1n, from: 'pending', to: 'shipped', at: LATER }), { changed: true });
      });

      test('when many cancels of one pending order run at once, then exactly one changes it', async (t) => {
        const { storage, account } = await setUp(t);
        await storage.orders.create(pending(account.id, { id: 1n }));
        const results = await Promise.all(
          Array.from({ length: 25 }, () =>
            storage.orders.changeStatus({ id: 1n, accountId: account.id, from: 'pending', to: 'cancelled', at: LATER }),
          ),
        );
        assert.equal(results.filter((r) => r.changed).length, 1);
        assert.ok(results.every((r) => r.changed || r.current === 'cancelled'));
      });

      test('when a cancel and a ship race on several connections, then exactly one wins and the status agrees', async (t) => {
        const { storage, config } = await backend.freshDatabase(t);
        const account = await storage.accounts.create({ name: 'Main Street Pets', createdAt: AT });
        // A second handle on the same database: a separate connection (pool) racing the first.
        const second = openStorage(config);
        t.after(() => second.close());
        for (let id = 1n; id <= 10n; id++) await storage.orders.create(pending(account.id, { id }));
        for (let id = 1n; id <= 10n; id++) {
          const [cancel, ship] = await Promise.all([
            storage.orders.changeStatus({ id, accountId: account.id, from: 'pending', to: 'cancelled', at: LATER }),
            second.orders.changeStatus({ id, from: 'pending', to: 'shipped', at: LATER }),
          ]);
          assert.equal(Number(cancel.changed) + Number(ship.changed), 1, `order ${id}`);
          assert.equal((await storage.orders.findById(id))?.status, cancel.changed ? 'cancelled' : 'shipped');
        }
      });
    });

    describe('orders: grouped status change', () => {
      const cancel = (id: bigint, accountId?: number) => ({ id, accountId, from: 'pending', to: 'cancelled', at: LATER }) as const;
      const ship = (id: bigint, accountId?: number) => ({ id, accountId, from: 'pending', to: 'shipped', at: LATER }) as const;

      test('when a group is empty, then it answers nothing and changes nothing', async (t) => {
        const { storage } = await setUp(t);
        assert.deepEqual(await storage.orders.changeStatusMany([]), []);
      });

      test('when a group mixes a pending, a cancelled, a shipped and a missing order, then each result comes in array order', async (t) => {
        const { storage, account } = await setUp(t);
        for (const id of [1n, 2n, 3n, 5n]) await storage.orders.create(pending(account.id, { id }));
        await storage.orders.changeStatus(cancel(2n, account.id));
        await storage.orders.changeStatus(ship(3n, account.id));
        // Not in id order, so that array order and id order differ.
        const results = await storage.orders.changeStatusMany([
          cancel(5n, account.id),
          cancel(404n, account.id),
          cancel(3n, account.id),
          cancel(2n, account.id),
          cancel(1n, account.id),
        ]);
        assert.deepEqual(results, [
          { changed: true },
          { changed: false },
          { changed: false, current: 'shipped' },
          { changed: false, current: 'cancelled' },
          { changed: true },
        ]);
        assert.deepEqual(
          (await storage.orders.listAll(account.id)).map((o) => [o.id, o.status]),
          [
            [1n, 'cancelled'],
            [2n, 'cancelled'],
            [3n, 'shipped'],
            [5n, 'cancelled'],
          ],
        );
      });

      test('when a large group comes in shuffled id order, then every result still comes at its own position', async (t) => {
        const { storage, account, other } = await setUp(t);
        // 3,000 orders: every third shipped, every fifth another account's; the group also names absent ids.
        const ids = Array.from({ length: 3000 }, (_, i) => BigInt(i + 1));
        async function* batches() {
          for (let start = 0; start < ids.length; start += 500) {
            const slice = ids.slice(start, start + 500);
            yield {
              orders: slice.map((id) => pending(id % 5n === 0n ? other.id : account.id, { id, status: id % 3n === 0n ? 'shipped' : 'pending' })),
              lines: slice.map((id) => Number(id)),
            };
          }
        }
        await storage.orders.importOrders(batches());
        // A fixed shuffle (a multiplicative step modulo a prime above the count), so that array order is far from id order.
        const named = Array.from({ length: 3011 }, (_, i) => BigInt(((i + 1) * 1777) % 3011));
        const results = await storage.orders.changeStatusMany(named.map((id) => cancel(id, account.id)));
        const expected = named.map((id) =>
          id === 0n || id > 3000n || id % 5n === 0n ? { changed: false } : id % 3n === 0n ? { changed: false, current: 'shipped' } : { changed: true },
        );
        assert.deepEqual(results, expected);
      });

      test('when a group names an order more than once, then each change is decided after the ones before it', async (t) => {
        const { storage, account, other } = await setUp(t);
        for (const id of [1n, 2n, 3n]) await storage.orders.create(pending(account.id, { id }));
        const results = await storage.orders.changeStatusMany([
          cancel(1n, account.id),
          cancel(2n, other.id),
          cancel(1n, account.id),
          ship(3n, account.id),
          cancel(2n, account.id),
          { id: 3n, accountId: account.id, from: 'shipped', to: 'cancelled', at: LATER },
          cancel(2n),
          cancel(3n, account.id),
          cancel(1n, account.id),
        ]);
        assert.deepEqual(results, [
          { changed: true },
          // Order 2 seen through another account: absent, whatever comes after.
          { changed: false },
          { changed: false, current: 'cancelled' },
          { changed: true },
          { changed: true },
          { changed: true },
          { changed: false, current: 'cancelled' },
          { changed: false, current: 'cancelled' },
          { changed: false, current: 'cancelled' },
        ]);
        assert.deepEqual((await storage.orders.listAll(account.id)).map((o) => o.status), ['cancelled', 'cancelled', 'cancelled']);
      });

      test("when a group names another account's orders, then they are not changed and look absent, and the rest still happens", async (t) => {
        const { storage, account, other } = await setUp(t);
        await storage.orders.create(pending(other.id, { id: 1n }));
        await storage.orders.create(pending(other.id, { id: 2n, status: 'shipped' }));
        await storage.orders.create(pending(account.id, { id: 3n }));
        const results = await storage.orders.changeStatusMany([cancel(1n, account.id), cancel(2n, account.id), cancel(3n, account.id)]);
        assert.deepEqual(results, [{ changed: false }, { changed: false }, { changed: true }]);
        assert.deepEqual((await storage.orders.listAll(other.id)).map((o) => o.status), ['pending', 'shipped']);
      });

      test('when changes in a group give no account, then orders of any account change and refusals tell the status', async (t) => {
        const { storage, account, other } = await setUp(t);
        await storage.orders.create(pending(account.id, { id: 1n }));
        await storage.orders.create(pending(other.id, { id: 2n }));
        await storage.orders.create(pending(other.id, { id: 3n, status: 'shipped' }));
        const results = await storage.orders.changeStatusMany([ship(1n), cancel(2n), cancel(3n), cancel(404n), cancel(3n, account.id)]);
        assert.deepEqual(results, [{ changed: true }, { changed: true }, { changed: false, current: 'shipped' }, { changed: false }, { changed: false }]);
        assert.equal((await storage.orders.findById(1n))?.status, 'shipped');
        assert.equal((await storage.orders.findById(2n))?.status, 'cancelled');
      });

      test('when a group mixes ships and cancels, then each goes from its own `from` to its own `to`', async (t) => {
        const { storage, account } = await setUp(t);
        for (const id of [1n, 2n, 3n, 4n]) await storage.orders.create(pending(account.id, { id }));
        const results = await storage.orders.changeStatusMany([
          ship(1n, account.id),
          cancel(2n, account.id),
          { id: 3n, accountId: account.id, from: 'shipped', to: 'cancelled', at: LATER },
          ship(4n, account.id),
        ]);
        assert.deepEqual(results, [{ changed: true }, { changed: true }, { changed: false, current: 'pending' }, { changed: true }]);
        assert.deepEqual((await storage.orders.listAll(account.id)).map((o) => o.status), ['shipped', 'cancelled', 'pending', 'shipped']);
      });

      test('when a group names int64 extreme ids, then each is matched exactly', async (t) => {
        const { storage, account } = await setUp(t);
        for (const id of [INT64_MAX, INT64_MIN, INT64_MAX - 1n]) await storage.orders.create(pending(account.id, { id }));
        const results = await storage.orders.changeStatusMany([cancel(INT64_MAX, account.id), cancel(INT64_MIN, account.id), cancel(INT64_MIN + 1n, account.id)]);
        assert.deepEqual(results, [{ changed: true }, { changed: true }, { changed: false }]);
        assert.deepEqual((await storage.orders.listAll(account.id)).map((o) => o.status), ['cancelled', 'pending', 'cancelled']);
      });

      test("when a group changes an account's orders, then that account's version moves and a merely named account's does not", async (t) => {
        const { storage, account, other } = await setUp(t);
        await storage.orders.create(pending(account.id, { id: 1n }));
        await storage.orders.create(pending(other.id, { id: 2n, status: 'shipped' }));
        const [mine, theirs] = [await storage.orders.ordersVersion(account.id), await storage.orders.ordersVersion(other.id)];
        await storage.orders.changeStatusMany([cancel(1n, account.id), cancel(2n, other.id), cancel(2n, account.id)]);
        assert.ok((await storage.orders.ordersVersion(account.id)) > mine);
        assert.equal(await storage.orders.ordersVersion(other.id), theirs);
      });

      test('when groups on two connections cancel the same orders at once, then each order is cancelled exactly once', async (t) => {
        const { storage, config } = await backend.freshDatabase(t);
        const account = await storage.accounts.create({ name: 'Main Street Pets', createdAt: AT });
        const second = openStorage(config);
        t.after(() => second.close());
        const ids = Array.from({ length: 40 }, (_, i) => BigInt(i + 1));
        for (const id of ids) await storage.orders.create(pending(account.id, { id }));
        // Opposite orders, and each group names every order twice.
        const forward = [...ids, ...ids].map((id) => cancel(id, account.id));
        const backward = [...forward].reverse();
        const [here, there] = await Promise.all([storage.orders.changeStatusMany(forward), second.orders.changeStatusMany(backward)]);
        for (const [i, id] of ids.entries()) {
          const outcomes = [here[i], here[i + ids.length], there[ids.length - 1 - i], there[2 * ids.length - 1 - i]];
          assert.equal(outcomes.filter((o) => o?.changed).length, 1, `order ${id} cancelled exactly once`);
          assert.ok(outcomes.every((o) => o?.changed === true || o?.current === 'cancelled'), `order ${id}: ${JSON.stringify(outcomes)}`);
        }
        assert.ok((await storage.orders.listAll(account.id)).every((o) => o.status === 'cancelled'));
      });
    });

    describe('migrations', () => {
      test('when migrate runs again, then it applies nothing and reports the same version', async (t) => {
        const { storage } = await backend.freshDatabase(t, { migrate: false });
        const first = await storage.migrate();
        const all = allMigrations(storage.kind);
        assert.deepEqual(first, { applied: all.names, version: all.version });
        assert.deepEqual(await storage.migrate(), { applied: [], version: all.version });
      });

      test('when several handles migrate one empty database at once, then exactly one applies each migration', async (t) => {
        const { config, storage } = await backend.freshDatabase(t, { migrate: false });
        const handles = [storage, ...Array.from({ length: 4 }, () => openStorage(config))];
        t.after(() => Promise.all(handles.slice(1).map((h) => h.close())));
        const reports = await Promise.all(handles.map((h) => h.migrate()));
        const all = allMigrations(config.kind);
        assert.deepEqual(reports.flatMap((r) => r.applied).sort(), all.names);
        assert.ok(reports.every((r) => r.version === all.version));
        await storage.accounts.create({ name: 'works', createdAt: AT });
      });

      test('when the schema is newer than this program (a later migration applied), then migrate refuses, names both versions and applies nothing', async (t) => {
        const { config, storage } = await backend.freshDatabase(t);
        const all = allMigrations(storage.kind);
        await runSql(config, "INSERT INTO schema_migrations (version, name, applied_at) VALUES (9999, '9999-from-the-future', '2030-01-01T00:00:00.000Z')");
        await assert.rejects(storage.migrate(), new RegExp(`schema \\(version 9999\\) is newer than this program knows \\(${all.version}\\); upgrade the program`));
        const versions = await readSql(config, 'SELECT version FROM schema_migrations ORDER BY version');
        assert.deepEqual(versions.map((row) => Number(row.version)), [...all.names.map((name) => Number(name.slice(0, 4))), 9999]);
      });
    });
  });
}
