/**
 * Deleting an account, the storage contract (docs/portal.md, "Deleting an
 * account"): one transaction ends everything that could act in it and keeps
 * its history; only an owner's deletion is made; a key is never left
 * working in a deleted account, also when it is created at the same time.
 * The same cases on every adapter.
 */
import assert from 'node:assert/strict';
import { describe, test, type TestContext } from 'node:test';
import type { AccountDeletion } from '../../../src/accounts/accounts-repository.js';
import { API_KEY_SCOPES } from '../../../src/api-keys/api-key-scopes.js';
import type { Storage } from '../../../src/storage/storage.js';
import { rejectsWithCode, type ContractCoverage } from '../../support/storage-contract.js';
import { storageBackends } from '../../support/storage.js';

export const CONTRACT_COVERS = {
  accounts: ['delete'],
} as const satisfies ContractCoverage;

const AT = '2026-11-22T10:00:00.000Z';
const LATER = '2026-11-22T11:00:00.000Z';
const END = '2026-11-29T10:00:00.000Z';
const hashOf = (n: number) => n.toString(16).padStart(64, '0');

for (const backend of storageBackends({ postgresDirect: true })) {
  describe(`account deletion storage: ${backend.name}`, () => {
    /** Two stores: ann owns the shop, bob is a developer of it and owns the harbour; each has keys, sessions, an endpoint. */
    async function setUp(t: TestContext) {
      const { storage } = await backend.freshDatabase(t);
      const shop = (await storage.accounts.create({ name: 'Main Street Pets', createdAt: AT })).id;
      const harbour = (await storage.accounts.create({ name: 'Harbour Pets', createdAt: AT })).id;
      const ann = await storage.users.create({ accountId: shop, role: 'owner', email: 'ann@example.com', passwordHash: 'h', createdAt: AT });
      const bob = await storage.users.create({ accountId: harbour, role: 'owner', email: 'bob@example.com', passwordHash: 'h', createdAt: AT });
      assert.ok(ann !== 'email_taken' && bob !== 'email_taken');
      await storage.team.createInvitation({ tokenHash: hashOf(1), accountId: shop, role: 'developer', createdAt: AT, expiresAt: END });
      assert.ok(await storage.team.acceptInvitation(hashOf(1), AT, bob.id));
      await storage.team.createInvitation({ tokenHash: hashOf(2), accountId: shop, email: 'cat@example.com', role: 'viewer', createdAt: AT, expiresAt: END });
      let n = 0;
      const key = (accountId: number) => {
        n += 1;
        return storage.apiKeys.create({ accountId, name: `key ${n}`, hash: hashOf(100 + n), start: `so_prod_${n}`, createdAt: AT, scopes: API_KEY_SCOPES });
      };
      const session = (userId: number, accountId: number) => {
        n += 1;
        return storage.sessions.create({ idHash: hashOf(200 + n), userId, accountId, createdAt: AT, expiresAt: END, handle: hashOf(n).slice(32), device: '', address: '' });
      };
      const endpoint = async (accountId: number) => {
        n += 1;
        const created = await storage.webhooks.createEndpoint(
          { id: `we_${String(n).padStart(32, '0')}`, accountId, url: `https://hooks.example.com/${n}`, eventTypes: null, description: null, rateLimit: null, sealedSecret: 'sealed', createdAt: AT },
          { maxPerAccount: 10 },
        );
        assert.ok(typeof created === 'object');
        return created;
      };
      const shopKeys = [await key(shop), await key(shop)];
      const harbourKey = await key(harbour);
      await session(ann.id, shop);
      await session(bob.id, shop);
      await session(bob.id, harbour);
      const shopEndpoint = await endpoint(shop);
      const harbourEndpoint = await endpoint(harbour);
      await storage.audit.append([{ accountId: shop, at: AT, actor: { kind: 'operator' }, action: 'order_shipped', details: {} }]);
      const deletion = (fields: Partial<AccountDeletion> = {}): AccountDeletion => ({
        accountId: shop,
        at: LATER,
        byOwner: ann.id,
        audit: { accountId: shop, at: LATER, actor: { kind: 'user', id: ann.id }, address: '192.0.2.1', action: 'account_deleted', details: { name: 'Main Street Pets' } },
        endpointReason: 'The account was deleted.',
        ...fields,
      });
      return { storage, shop, harbour, ann: ann.id, bob: bob.id, shopKeys, harbourKey, shopEndpoint, harbourEndpoint, deletion };
    }

    const sessionsOf = async (storage: Storage, first: number, last: number) =>
      (await Promise.all(Array.from({ length: last - first + 1 }, (_, i) => storage.sessions.find(hashOf(200 + first + i))))).map((found) => found?.user.accountId);

    test('when an owner deletes an account, then its keys, invitations, memberships, sessions and endpoints end in one transaction with its audit entry; its history and the other store are kept', async (t) => {
      const { storage, shop, harbour, ann, bob, shopKeys, harbourKey, shopEndpoint, harbourEndpoint, deletion } = await setUp(t);

      assert.deepEqual(await storage.accounts.delete(deletion()), { keysRevoked: 2, sessionsEnded: 2, membersRemoved: 2, invitationsRevoked: 1, endpointsDisabled: 1 });

      assert.deepEqual(await storage.accounts.findById(shop), { id: shop, name: 'Main Street Pets', createdAt: AT, deletedAt: LATER });
      assert.deepEqual((await storage.accounts.list()).map((account) => account.deletedAt), [LATER, undefined], 'listed, marked deleted');
      for (const key of shopKeys) assert.equal((await storage.apiKeys.findById(key.id))?.revokedAt, LATER);
      assert.equal(await storage.apiKeys.findActiveByHash(hashOf(101)), undefined, 'its keys stop working');
      assert.equal((await storage.apiKeys.findActiveByHash(hashOf(103)))?.keyId, harbourKey.id, 'another account’s key works');
      assert.deepEqual(await storage.team.listInvitations(shop, LATER), []);
      assert.equal(await storage.team.peekInvitation(hashOf(2), LATER), undefined, 'the pending invitation is revoked');
      assert.deepEqual(await storage.team.listMembers(shop), []);
      assert.deepEqual(await storage.team.listMemberships(ann), [], 'ann belongs to no account now');
      assert.deepEqual(await storage.team.listMemberships(bob), [{ accountId: harbour, accountName: 'Harbour Pets', role: 'owner' }], 'bob keeps his own store');
      assert.deepEqual(await sessionsOf(storage, 4, 6), [undefined, undefined, harbour], 'the sessions working in it end; bob’s in his store stays');
      assert.equal(await storage.sessions.create({ idHash: hashOf(299), userId: ann, createdAt: LATER, expiresAt: END, handle: hashOf(99).slice(32), device: '', address: '' }), undefined, 'ann signs in to nothing');
      assert.equal((await storage.webhooks.findEndpoint(shop, shopEndpoint.id))?.status, 'disabled');
      assert.equal((await storage.webhooks.findEndpoint(shop, shopEndpoint.id))?.disabledReason, 'The account was deleted.');
      assert.equal((await storage.webhooks.findEndpoint(harbour, harbourEndpoint.id))?.status, 'enabled');
      const trail = await storage.audit.listPage({ accountId: shop, limit: 10 });
      assert.deepEqual(
        trail.map((entry) => [entry.action, entry.actor, entry.address]),
        [
          ['account_deleted', { kind: 'user', id: ann }, '192.0.2.1'],
          ['order_shipped', { kind: 'operator' }, undefined],
        ],
        'the trail is kept, the deletion its last entry',
      );

      assert.equal(await storage.accounts.delete(deletion()), 'not_found', 'deleted once');
      assert.equal((await storage.audit.listPage({ accountId: shop, limit: 10 })).length, 2, 'no second entry');
    });

    test('when a developer or a stranger deletes it, then not_owner and nothing changes; the operator’s deletion (no owner named) is made; an unknown account is not_found', async (t) => {
      const { storage, shop, harbour, bob, deletion } = await setUp(t);
      assert.equal(await storage.accounts.delete(deletion({ byOwner: bob })), 'not_owner', 'bob is a developer of the shop');
      assert.equal(await storage.accounts.delete(deletion({ accountId: harbour, byOwner: 999_999 })), 'not_owner');
      assert.equal(await storage.accounts.delete(deletion({ accountId: 999_999 })), 'not_found');
      assert.equal((await storage.accounts.findById(shop))?.deletedAt, undefined, 'nothing changed');
      assert.equal((await storage.team.listMembers(shop)).length, 2);
      assert.equal((await storage.audit.listPage({ accountId: shop, limit: 10 })).length, 1, 'no entry');

      const byOperator: AccountDeletion = {
        accountId: shop,
        at: LATER,
        audit: { accountId: shop, at: LATER, actor: { kind: 'operator' }, action: 'account_deleted', details: {} },
        endpointReason: 'The account was deleted.',
      };
      assert.equal(typeof (await storage.accounts.delete(byOperator)), 'object');
      assert.equal((await storage.accounts.findById(shop))?.deletedAt, LATER);
    });

    test('when a key is created in a deleted account, then it is refused; created while the account is being deleted, it is revoked or refused, never left working', async (t) => {
      const { storage, shop, deletion } = await setUp(t);
      const newKey = (n: number) => ({ accountId: shop, name: `late ${n}`, hash: hashOf(500 + n), start: `so_prod_late${n}`, createdAt: LATER, scopes: API_KEY_SCOPES });
      const [deleted, created] = await Promise.allSettled([storage.accounts.delete(deletion()), storage.apiKeys.create(newKey(1))]);
      assert.equal(deleted.status, 'fulfilled');
      if (created.status === 'rejected') await assert.rejects(Promise.reject(created.reason), rejectsWithCode('account_not_found'));
      assert.equal(await storage.apiKeys.findActiveByHash(hashOf(501)), undefined, 'the racing key does not work');
      await assert.rejects(storage.apiKeys.create(newKey(2)), rejectsWithCode('account_not_found'));
      assert.deepEqual((await storage.apiKeys.listByAccount(shop)).filter((key) => key.revokedAt === undefined), []);
    });
  });
}
