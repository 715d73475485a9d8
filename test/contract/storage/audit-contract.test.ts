/** The audit trail part of the storage contract: the same cases on every adapter. */
import assert from 'node:assert/strict';
import { describe, test, type TestContext } from 'node:test';
import type { NewAuditEntry } from '../../../src/audit/audit-repository.js';
import type { DatabaseConfig } from '../../../src/config/config.js';
import type { Storage } from '../../../src/storage/storage.js';
import { failInserts, isoPlus, rejectsWithCode, type ContractCoverage } from '../../support/storage-contract.js';
import { storageBackends } from '../../support/storage.js';

export const CONTRACT_COVERS = {
  audit: ['append', 'listPage', 'deleteOlderThan'],
} as const satisfies ContractCoverage;

const T0 = '2026-11-22T10:00:00.000Z';

for (const backend of storageBackends({ postgresDirect: true })) {
  describe(`audit storage contract: ${backend.name}`, () => {
    async function setUp(t: TestContext): Promise<{ storage: Storage; config: DatabaseConfig; a: number; b: number }> {
      const { storage, config } = await backend.freshDatabase(t);
      const { id: a } = await storage.accounts.create({ name: 'Main Street Pets', createdAt: T0 });
      const { id: b } = await storage.accounts.create({ name: 'Other Pets', createdAt: T0 });
      return { storage, config, a, b };
    }
    const entry = (accountId: number, n: number, extra: Partial<NewAuditEntry> = {}): NewAuditEntry => ({
      accountId,
      at: isoPlus(T0, n * 1000),
      actor: { kind: 'operator' },
      action: 'order_cancelled',
      target: { kind: 'order', id: String(n) },
      details: {},
      ...extra,
    });

    describe('audit.append and audit.listPage', () => {
      test('when entries of every shape are appended, then they read back exactly, newest first, only for their account', async (t) => {
        const { storage, a, b } = await setUp(t);
        const full = entry(a, 1, {
          actor: { kind: 'key', id: 12 },
          address: '2001:db8::7',
          action: 'authn_token_created',
          target: { kind: 'api_key', id: '12' },
          details: { name: 'checkout ✓', scopes: 'orders:read', count: 3, ratio: 0.5, on: true },
        });
        const bare = entry(a, 2, { actor: { kind: 'system' }, action: 'webhook_endpoint_disabled', target: undefined });
        const user = entry(a, 3, { actor: { kind: 'user', id: 7 }, action: 'authn_login_success', target: undefined, address: '203.0.113.9' });
        await storage.audit.append([full, bare]);
        await storage.audit.append([entry(b, 4)]);
        await storage.audit.append([user]);

        const page = await storage.audit.listPage({ accountId: a, limit: 10 });
        // Absent optional fields come back absent, not undefined.
        const withoutTarget = (e: NewAuditEntry) => Object.fromEntries(Object.entries(e).filter(([name]) => name !== 'target'));
        assert.deepEqual(
          page.map((e) => Object.fromEntries(Object.entries(e).filter(([name]) => name !== 'id'))),
          [withoutTarget(user), withoutTarget(bare), full],
        );
        const ids = page.map((e) => e.id);
        assert.ok(ids.every((id) => typeof id === 'bigint'));
        assert.deepEqual([...ids].sort((x, y) => (x < y ? 1 : -1)), ids, 'newest (largest id) first');
        const other = await storage.audit.listPage({ accountId: b, limit: 10 });
        assert.deepEqual(other.map((e) => e.target?.id), ['4']);
      });

      test('when paging with beforeId, then each page continues below the last id, with no entry twice or missing', async (t) => {
        const { storage, a, b } = await setUp(t);
        await storage.audit.append(Array.from({ length: 7 }, (_, i) => entry(i % 2 === 0 ? a : b, i)));
        await storage.audit.append(Array.from({ length: 5 }, (_, i) => entry(a, 10 + i)));
        const seen: string[] = [];
        let beforeId: bigint | undefined;
        for (;;) {
          const page = await storage.audit.listPage({ accountId: a, beforeId, limit: 3 });
          seen.push(...page.map((e) => e.target?.id ?? ''));
          const last = page.at(-1);
          if (page.length < 3 || last === undefined) break;
          beforeId = last.id;
        }
        assert.deepEqual(seen, ['14', '13', '12', '11', '10', '6', '4', '2', '0']);
      });

      test('when an entry names an account that does not exist, then the append is refused whole (account_not_found)', async (t) => {
        const { storage, a } = await setUp(t);
        await assert.rejects(storage.audit.append([entry(a, 1), entry(999_999, 2)]), rejectsWithCode('account_not_found'));
        assert.deepEqual(await storage.audit.listPage({ accountId: a, limit: 10 }), []);
        await storage.audit.append([]);
      });
    });

    describe('audit.deleteOlderThan', () => {
      test('when pruning, then only entries strictly older than the instant go, at most limit per call, in every account', async (t) => {
        const { storage, a, b } = await setUp(t);
        await storage.audit.append([entry(a, 1), entry(b, 2), entry(a, 3), entry(a, 4), entry(b, 5)]);
        const cut = isoPlus(T0, 4000);
        assert.equal(await storage.audit.deleteOlderThan(cut, 2), 2);
        assert.equal(await storage.audit.deleteOlderThan(cut, 2), 1);
        assert.equal(await storage.audit.deleteOlderThan(cut, 2), 0);
        assert.deepEqual((await storage.audit.listPage({ accountId: a, limit: 10 })).map((e) => e.at), [isoPlus(T0, 4000)]);
        assert.deepEqual((await storage.audit.listPage({ accountId: b, limit: 10 })).map((e) => e.at), [isoPlus(T0, 5000)]);
      });

      test('when entries were pruned, then new entries get ids above every id ever given (a cursor keeps its place)', async (t) => {
        const { storage, a } = await setUp(t);
        await storage.audit.append([entry(a, 1), entry(a, 2)]);
        const [newest] = await storage.audit.listPage({ accountId: a, limit: 1 });
        assert.equal(await storage.audit.deleteOlderThan(isoPlus(T0, 10_000), 10), 2);
        await storage.audit.append([entry(a, 20)]);
        const [next] = await storage.audit.listPage({ accountId: a, limit: 1 });
        assert.ok(newest !== undefined && next !== undefined && next.id > newest.id);
      });
    });

    describe('status changes with an audit context', () => {
      const pending = (accountId: number, id: bigint) => ({ id, accountId, complete: false, status: 'pending' as const, createdAt: T0 });
      const trail = async (storage: Storage, accountId: number) =>
        (await storage.audit.listPage({ accountId, limit: 50 })).map(({ actor, address, action, target, at }) => ({ actor, address, action, target: target?.id, at }));

      test('when changes that carry who asked happen, then each commits its entry in its transaction; a refused or unaudited change writes none', async (t) => {
        const { storage, a, b } = await setUp(t);
        for (const id of [1n, 2n, 3n]) await storage.orders.create(pending(a, id));
        await storage.orders.create(pending(b, 4n));
        const key = { actor: { kind: 'key' as const, id: 5 }, address: '2001:db8::1' };
        // A group: two of account a happen, one of a's order under b's account and a repeat are refused.
        const results = await storage.orders.changeStatusMany([
          { id: 1n, accountId: a, from: 'pending', to: 'cancelled', at: isoPlus(T0, 1000), audit: key },
          { id: 4n, accountId: a, from: 'pending', to: 'cancelled', at: isoPlus(T0, 1000), audit: key },
          { id: 1n, accountId: a, from: 'pending', to: 'cancelled', at: isoPlus(T0, 1000), audit: key },
          { id: 4n, accountId: b, from: 'pending', to: 'cancelled', at: isoPlus(T0, 1000), audit: { actor: { kind: 'user', id: 9 } } },
        ]);
        assert.deepEqual(results, [{ changed: true }, { changed: false }, { changed: false, current: 'cancelled' }, { changed: true }]);
        // A single change (the operator's ship), and one without a context (written by no caller of the services).
        assert.deepEqual(await storage.orders.changeStatus({ id: 2n, from: 'pending', to: 'shipped', at: isoPlus(T0, 2000), audit: { actor: { kind: 'operator' } } }), { changed: true });
        assert.deepEqual(await storage.orders.changeStatus({ id: 3n, from: 'pending', to: 'shipped', at: isoPlus(T0, 3000) }), { changed: true });
        assert.deepEqual(await trail(storage, a), [
          { actor: { kind: 'operator' }, address: undefined, action: 'order_shipped', target: '2', at: isoPlus(T0, 2000) },
          { actor: key.actor, address: key.address, action: 'order_cancelled', target: '1', at: isoPlus(T0, 1000) },
        ]);
        assert.deepEqual(await trail(storage, b), [{ actor: { kind: 'user', id: 9 }, address: undefined, action: 'order_cancelled', target: '4', at: isoPlus(T0, 1000) }]);
      });

      test('when the entry cannot be written, then the change rolls back with it, alone or in a group', async (t) => {
        const { storage, config, a } = await setUp(t);
        for (const id of [1n, 2n]) await storage.orders.create(pending(a, id));
        const audit = { actor: { kind: 'operator' as const } };
        const forced = failInserts(config, 'audit_events');
        await forced.arm();
        await assert.rejects(storage.orders.changeStatusMany([{ id: 1n, accountId: a, from: 'pending', to: 'cancelled', at: isoPlus(T0, 1000), audit }]), /forced failure/);
        await assert.rejects(
          storage.orders.changeStatusMany([
            { id: 1n, accountId: a, from: 'pending', to: 'cancelled', at: isoPlus(T0, 1000), audit },
            { id: 2n, accountId: a, from: 'pending', to: 'cancelled', at: isoPlus(T0, 1000), audit },
          ]),
          /forced failure/,
        );
        await assert.rejects(storage.orders.changeStatus({ id: 2n, from: 'pending', to: 'shipped', at: isoPlus(T0, 1000), audit }), /forced failure/);
        await forced.allow();
        assert.deepEqual((await storage.orders.listAll(a)).map((o) => o.status), ['pending', 'pending'], 'no change without its entry');
        assert.deepEqual((await storage.events.listPage({ accountId: a, filter: {}, afterPosition: 0n, limit: 10 })).map((e) => e.type), ['order.created', 'order.created']);
        assert.deepEqual(await trail(storage, a), []);
      });
    });
  });
}
