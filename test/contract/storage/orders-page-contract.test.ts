/**
 * The listing part of the orders storage contract: the v2 keyset page query
 * (listPage), the v1 page (listActivePage) and the version that validates
 * listing caches (ordersVersion). The same cases on every adapter.
 */
import assert from 'node:assert/strict';
import { describe, test, type TestContext } from 'node:test';
import type { NewOrder, Order, OrderFilter } from '../../../src/orders/orders-repository.js';
import { INT64_MAX, INT64_MIN } from '../../../src/shared/int64.js';
import { openStorage } from '../../../src/storage/open-storage.js';
import type { Storage } from '../../../src/storage/storage.js';
import type { ContractCoverage } from '../../support/storage-contract.js';
import { storageBackends } from '../../support/storage.js';

export const CONTRACT_COVERS = {
  orders: ['listPage', 'listActivePage', 'ordersVersion'],
} as const satisfies ContractCoverage;

const AT = '2026-11-21T12:00:00.000Z';
const BIG_PET = 2n ** 53n;
const DEC_1 = '2026-12-01T00:00:00.000Z';
const DEC_2 = '2026-12-02T00:00:00.000Z';

/**
 * One account's orders, chosen so that every filter keeps a different set:
 * statuses, pet ids (two only an exact int64 tells apart), completeness and
 * ship dates on and around the edges of 1 December, and orders without the
 * optional fields.
 */
const FIXTURE: readonly Omit<NewOrder, 'accountId' | 'createdAt'>[] = [
  { id: 1n, petId: 10n, quantity: 1, shipDate: DEC_1, complete: false, status: 'pending' },
  { id: 2n, petId: 11n, quantity: 2, shipDate: '2026-12-01T23:59:59.999Z', complete: true, status: 'shipped' },
  { id: 3n, petId: 10n, quantity: 3, complete: false, status: 'cancelled' },
  { id: 4n, petId: BIG_PET + 1n, quantity: 4, shipDate: DEC_2, complete: true, status: 'pending' },
  { id: 5n, petId: BIG_PET, shipDate: '2026-11-30T23:59:59.999Z', complete: false, status: 'shipped' },
  { id: 6n, petId: 10n, quantity: 6, shipDate: '2026-12-01T12:00:00.000Z', complete: true, status: 'cancelled' },
  { id: 7n, quantity: 7, shipDate: '2026-12-01T00:00:00.001Z', complete: false, status: 'pending' },
];
/** The other account holds the same orders under these ids, so that every filter would match them too. */
const OTHER_OFFSET = 100n;

for (const backend of storageBackends({ postgresDirect: true })) {
  describe(`orders listing storage contract: ${backend.name}`, () => {
    async function setUp(t: TestContext): Promise<{ storage: Storage; accountId: number; otherId: number }> {
      const { storage } = await backend.freshDatabase(t);
      const { id: accountId } = await storage.accounts.create({ name: 'Main Street Pets', createdAt: AT });
      const { id: otherId } = await storage.accounts.create({ name: 'Harbour Pets', createdAt: AT });
      for (const order of FIXTURE) {
        await storage.orders.create({ ...order, accountId, createdAt: AT });
        await storage.orders.create({ ...order, id: (order.id ?? 0n) + OTHER_OFFSET, accountId: otherId, createdAt: AT });
      }
      return { storage, accountId, otherId };
    }

    describe('orders.listPage', () => {
      test('when a page is asked for, then it holds at most `limit` orders after `afterId`, by id, of that account only', async (t) => {
        const { storage } = await backend.freshDatabase(t);
        const a = await storage.accounts.create({ name: 'A', createdAt: AT });
        const b = await storage.accounts.create({ name: 'B', createdAt: AT });
        for (const id of [5n, 1n, 9n, 3n, 7n]) await storage.orders.create({ id, accountId: a.id, complete: false, status: 'pending', createdAt: AT });
        await storage.orders.create({ id: 4n, accountId: b.id, complete: false, status: 'pending', createdAt: AT });
        const ids = async (afterId: bigint | undefined, limit: number) =>
          (await storage.orders.listPage({ accountId: a.id, filter: {}, afterId, limit })).map((o) => o.id);
        assert.deepEqual(await ids(undefined, 2), [1n, 3n]);
        assert.deepEqual(await ids(3n, 2), [5n, 7n]);
        assert.deepEqual(await ids(7n, 10), [9n]);
        assert.deepEqual(await ids(9n, 10), []);
        assert.deepEqual(await ids(-9223372036854775808n, 10), [1n, 3n, 5n, 7n, 9n]);
      });

      test('when no filter is given, then every order of the account comes, in any status, exactly as listAll returns it', async (t) => {
        const { storage, accountId, otherId } = await setUp(t);
        assert.deepEqual(await storage.orders.listPage({ accountId, filter: {}, limit: 100 }), await storage.orders.listAll(accountId));
        assert.deepEqual(await storage.orders.listPage({ accountId: otherId, filter: {}, limit: 100 }), await storage.orders.listAll(otherId));
        const [seventh] = await storage.orders.listPage({ accountId, filter: {}, afterId: 6n, limit: 1 });
        assert.deepEqual(seventh, { id: 7n, accountId, quantity: 7, shipDate: '2026-12-01T00:00:00.001Z', complete: false, status: 'pending' });
        assert.deepEqual(Object.keys(seventh ?? {}).sort(), ['accountId', 'complete', 'id', 'quantity', 'shipDate', 'status'], 'petId absent, not null');
      });

      test('when one filter is given, then only the orders it matches come; ship dates are the half-open range [from, to) and need a date', async (t) => {
        const { storage, accountId } = await setUp(t);
        const cases: [OrderFilter, bigint[]][] = [
          [{ statuses: ['pending'] }, [1n, 4n, 7n]],
          [{ statuses: ['shipped', 'cancelled'] }, [2n, 3n, 5n, 6n]],
          [{ statuses: ['cancelled', 'pending', 'shipped'] }, [1n, 2n, 3n, 4n, 5n, 6n, 7n]],
          [{ petId: 10n }, [1n, 3n, 6n]],
          [{ petId: BIG_PET + 1n }, [4n]],
          [{ petId: BIG_PET }, [5n]],
          [{ petId: 999n }, []],
          [{ complete: true }, [2n, 4n, 6n]],
          [{ complete: false }, [1n, 3n, 5n, 7n]],
          [{ shipDateFrom: DEC_1 }, [1n, 2n, 4n, 6n, 7n]],
          [{ shipDateFrom: '2026-12-01T00:00:00.001Z' }, [2n, 4n, 6n, 7n]],
          [{ shipDateTo: '2026-12-01T00:00:00.001Z' }, [1n, 5n]],
          [{ shipDateTo: DEC_1 }, [5n]],
          [{ shipDateFrom: DEC_1, shipDateTo: DEC_2 }, [1n, 2n, 6n, 7n]],
          [{ shipDateFrom: DEC_1, shipDateTo: DEC_1 }, []],
          [{ shipDateFrom: '0001-01-01T00:00:00.000Z', shipDateTo: '9999-12-31T23:59:59.999Z' }, [1n, 2n, 4n, 5n, 6n, 7n]],
        ];
        for (const [filter, expected] of cases) {
          const ids = (await storage.orders.listPage({ accountId, filter, limit: 100 })).map((o) => o.id);
          assert.deepEqual(ids, expected, JSON.stringify(filter, (_key, value: unknown) => (typeof value === 'bigint' ? String(value) : value)));
        }
      });

      test('when filters are combined, then an order must match all of them', async (t) => {
        const { storage, accountId } = await setUp(t);
        const ids = async (filter: OrderFilter) => (await storage.orders.listPage({ accountId, filter, limit: 100 })).map((o) => o.id);
        assert.deepEqual(await ids({ statuses: ['pending'], complete: false, shipDateFrom: DEC_1, shipDateTo: DEC_2 }), [1n, 7n]);
        assert.deepEqual(await ids({ petId: 10n, statuses: ['cancelled'] }), [3n, 6n]);
        assert.deepEqual(await ids({ petId: 10n, statuses: ['cancelled'], shipDateFrom: DEC_1 }), [6n]);
        assert.deepEqual(await ids({ petId: BIG_PET + 1n, complete: false }), []);
      });

      test('when pages of a filtered listing are walked by afterId, then together they are the whole listing, each at most `limit` long', async (t) => {
        const { storage, accountId } = await setUp(t);
        const filters: OrderFilter[] = [{}, { statuses: ['pending', 'shipped'] }, { petId: 10n }, { complete: true }, { shipDateFrom: DEC_1, shipDateTo: DEC_2 }];
        for (const filter of filters) {
          const whole = await storage.orders.listPage({ accountId, filter, limit: 100 });
          for (const limit of [1, 2, 3]) {
            const walked: Order[] = [];
            let afterId: bigint | undefined;
            for (;;) {
              const page = await storage.orders.listPage({ accountId, filter, afterId, limit });
              assert.ok(page.length <= limit);
              walked.push(...page);
              if (page.length < limit) break;
              afterId = page.at(-1)?.id;
            }
            assert.deepEqual(walked, whole);
          }
        }
      });

      test('when afterId is an extreme or falls between matches, then the page starts after it', async (t) => {
        const { storage, accountId } = await setUp(t);
        const ids = async (afterId: bigint, filter: OrderFilter = {}) => (await storage.orders.listPage({ accountId, filter, afterId, limit: 100 })).map((o) => o.id);
        assert.deepEqual(await ids(INT64_MAX), []);
        assert.deepEqual(await ids(INT64_MIN), [1n, 2n, 3n, 4n, 5n, 6n, 7n]);
        // afterId need not match the filter itself (an order may change status between two pages).
        assert.deepEqual(await ids(2n, { statuses: ['pending'] }), [4n, 7n]);
        assert.deepEqual(await ids(4n, { statuses: ['pending'] }), [7n]);
      });

      test("when another account's orders match the filter, then they never appear; an unknown account has an empty listing", async (t) => {
        const { storage, accountId, otherId } = await setUp(t);
        const filter: OrderFilter = { petId: 10n };
        assert.deepEqual((await storage.orders.listPage({ accountId, filter, limit: 100 })).map((o) => o.id), [1n, 3n, 6n]);
        assert.deepEqual((await storage.orders.listPage({ accountId: otherId, filter, limit: 100 })).map((o) => o.id), [101n, 103n, 106n]);
        // From inside the other account's id range: still only this account's orders.
        assert.deepEqual((await storage.orders.listPage({ accountId, filter: {}, afterId: 101n, limit: 100 })).map((o) => o.id), []);
        assert.deepEqual((await storage.orders.listPage({ accountId: otherId, filter: {}, afterId: 6n, limit: 2 })).map((o) => o.id), [101n, 102n]);
        assert.deepEqual(await storage.orders.listPage({ accountId: 999_999, filter: {}, limit: 100 }), []);
      });
    });

    describe('orders.listActivePage', () => {
      test('when pages are walked, then together they are the orders not cancelled in the v1 shape: five fields, cancelled left out, by id', async (t) => {
        const { storage, accountId } = await setUp(t);
        const [first] = await storage.orders.listActivePage(accountId, undefined, 1);
        assert.deepEqual(first, { id: 1n, petId: 10n, quantity: 1, shipDate: DEC_1, complete: false });
        const expected = (await storage.orders.listAll(accountId)).filter((order) => order.status !== 'cancelled').map(({ id, petId, quantity, shipDate, complete }) => {
          // The listed shape omits what the order does not have, never null.
          return Object.fromEntries(Object.entries({ id, petId, quantity, shipDate, complete }).filter(([, value]) => value !== undefined));
        });
        assert.deepEqual(expected.map((o) => o.id), [1n, 2n, 4n, 5n, 7n]);
        for (const limit of [1, 2, 5, 100]) {
          const walked: object[] = [];
          let afterId: bigint | undefined;
          for (;;) {
            const page = await storage.orders.listActivePage(accountId, afterId, limit);
            assert.ok(page.length <= limit);
            walked.push(...page);
            if (page.length < limit) break;
            afterId = page.at(-1)?.id;
          }
          assert.deepEqual(walked, expected, `limit ${limit}`);
        }
      });

      test("when afterId is an extreme or another account's id, then only this account's active orders after it come", async (t) => {
        const { storage, accountId, otherId } = await setUp(t);
        const ids = async (account: number, afterId: bigint | undefined) => (await storage.orders.listActivePage(account, afterId, 100)).map((o) => o.id);
        assert.deepEqual(await ids(accountId, INT64_MIN), [1n, 2n, 4n, 5n, 7n]);
        assert.deepEqual(await ids(accountId, INT64_MAX), []);
        assert.deepEqual(await ids(accountId, 3n), [4n, 5n, 7n]);
        assert.deepEqual(await ids(accountId, 101n), []);
        assert.deepEqual(await ids(otherId, undefined), [101n, 102n, 104n, 105n, 107n]);
        assert.deepEqual(await ids(999_999, undefined), []);
      });
    });

    describe('orders.ordersVersion', () => {
      test('when orders are written through another handle on the same database, then the account\'s version moves and no other account\'s does', async (t) => {
        const { config, storage } = await backend.freshDatabase(t);
        const other = openStorage(config);
        t.after(() => other.close());
        const a = await storage.accounts.create({ name: 'A', createdAt: AT });
        const b = await storage.accounts.create({ name: 'B', createdAt: AT });
        assert.equal(await storage.orders.ordersVersion(a.id), 0n);
        assert.equal(await storage.orders.ordersVersion(999), 0n, 'unknown account');

        const order = await other.orders.create({ accountId: a.id, petId: 1n, complete: false, status: 'pending', createdAt: AT });
        assert.equal(await storage.orders.ordersVersion(a.id), 1n);
        await other.orders.changeStatus({ id: order.id, from: 'pending', to: 'shipped', at: AT });
        assert.equal(await storage.orders.ordersVersion(a.id), 2n);
        // A refused change writes nothing and moves nothing.
        await other.orders.changeStatus({ id: order.id, from: 'pending', to: 'cancelled', at: AT });
        assert.equal(await storage.orders.ordersVersion(a.id), 2n);
        assert.equal(await storage.orders.ordersVersion(b.id), 0n);
      });

      test('when many accounts\' versions are read at once, then each gets its own, and a write acknowledged before a read is seen by it', async (t) => {
        const { config, storage } = await backend.freshDatabase(t);
        const other = openStorage(config);
        t.after(() => other.close());
        const accounts = [];
        for (let i = 0; i < 6; i++) accounts.push(await storage.accounts.create({ name: `A${i}`, createdAt: AT }));
        for (const [i, account] of accounts.entries()) {
          for (let n = 0; n < i; n++) await other.orders.create({ accountId: account.id, petId: 1n, complete: false, status: 'pending', createdAt: AT });
        }
        const ids = [...accounts.map((a) => a.id), 999, ...accounts.map((a) => a.id)];
        assert.deepEqual(await Promise.all(ids.map((id) => storage.orders.ordersVersion(id))), [0n, 1n, 2n, 3n, 4n, 5n, 0n, 0n, 1n, 2n, 3n, 4n, 5n]);

        // Reads in flight while the next write commits: the read issued after
        // the commit was acknowledged must see it.
        const first = accounts[0]?.id ?? 0;
        const during = storage.orders.ordersVersion(first);
        await other.orders.create({ accountId: first, petId: 1n, complete: false, status: 'pending', createdAt: AT });
        const after = storage.orders.ordersVersion(first);
        assert.ok((await during) <= 1n);
        assert.equal(await after, 1n);
      });

      test('when a grouped change and an import commit, then the version has moved; a refused or failed write leaves it as it was', async (t) => {
        const { storage, accountId, otherId } = await setUp(t);
        const start = await storage.orders.ordersVersion(accountId);
        const theirs = await storage.orders.ordersVersion(otherId);
        assert.ok(start > 0n, 'the set-up wrote orders');

        await storage.orders.changeStatusMany([{ id: 3n, accountId, from: 'pending', to: 'cancelled', at: AT }]);
        assert.equal(await storage.orders.ordersVersion(accountId), start, 'a refused change');
        await assert.rejects(storage.orders.create({ id: 1n, accountId, complete: false, status: 'pending', createdAt: AT }));
        assert.equal(await storage.orders.ordersVersion(accountId), start, 'a refused create');

        await storage.orders.changeStatusMany([{ id: 1n, accountId, from: 'pending', to: 'shipped', at: AT }, { id: 7n, accountId, from: 'pending', to: 'cancelled', at: AT }]);
        const afterGroup = await storage.orders.ordersVersion(accountId);
        assert.ok(afterGroup > start);
        await storage.orders.importOrders(
          (async function* () {
            yield { orders: [{ id: 50n, accountId, complete: false, status: 'pending', createdAt: AT } satisfies NewOrder], lines: [1] };
          })(),
        );
        assert.ok((await storage.orders.ordersVersion(accountId)) > afterGroup);
        assert.equal(await storage.orders.ordersVersion(otherId), theirs);
      });
    });
  });
}
