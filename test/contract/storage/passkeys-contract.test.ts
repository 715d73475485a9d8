/** The passkeys part of the storage contract: the same cases on every adapter. */
import assert from 'node:assert/strict';
import { describe, test, type TestContext } from 'node:test';
import type { Storage } from '../../../src/storage/storage.js';
import type { ContractCoverage } from '../../support/storage-contract.js';
import { storageBackends } from '../../support/storage.js';

export const CONTRACT_COVERS = {
  passkeys: ['create', 'listByUser', 'findByCredentialId', 'recordUse', 'createChallenge', 'consumeChallenge'],
} as const satisfies ContractCoverage;

const AT = '2026-11-22T10:00:00.000Z';
const LATER = '2026-11-22T10:05:00.000Z';
const hashOf = (n: number) => n.toString(16).padStart(64, '0');

for (const backend of storageBackends({ postgresDirect: true })) {
  describe(`passkeys storage: ${backend.name}`, () => {
    async function setUp(t: TestContext): Promise<{ storage: Storage; userId: number; otherId: number }> {
      const { storage } = await backend.freshDatabase(t);
      const account = await storage.accounts.create({ name: 'Main Street Pets', createdAt: AT });
      const user = await storage.users.create({ accountId: account.id, role: 'owner', email: 'ann@example.com', passwordHash: 'h', createdAt: AT });
      const other = await storage.users.create({ accountId: account.id, role: 'owner', email: 'bob@example.com', passwordHash: 'h', createdAt: AT });
      assert.ok(user !== 'email_taken' && other !== 'email_taken');
      return { storage, userId: user.id, otherId: other.id };
    }

    test('when a passkey is created, then it is listed for its user only, found by credential id, and a second registration of that credential is credential_taken', async (t) => {
      const { storage, userId, otherId } = await setUp(t);
      const created = await storage.passkeys.create({ userId, credentialId: 'cred-1', publicKey: 'pk-1', signCount: 0, transports: ['internal', 'hybrid'], name: 'Laptop', createdAt: AT });
      assert.notEqual(created, 'credential_taken');
      if (created === 'credential_taken') return;
      assert.deepEqual(created, { id: created.id, userId, credentialId: 'cred-1', publicKey: 'pk-1', signCount: 0, transports: ['internal', 'hybrid'], name: 'Laptop', createdAt: AT });
      const second = await storage.passkeys.create({ userId, credentialId: 'cred-2', publicKey: 'pk-2', signCount: 5, transports: [], name: 'Phone', createdAt: LATER });
      assert.deepEqual(await storage.passkeys.listByUser(userId), [created, second]);
      assert.deepEqual(await storage.passkeys.listByUser(otherId), []);
      assert.deepEqual(await storage.passkeys.findByCredentialId('cred-1'), created);
      assert.equal(await storage.passkeys.findByCredentialId('cred-3'), undefined);
      assert.equal(await storage.passkeys.create({ userId: otherId, credentialId: 'cred-1', publicKey: 'x', signCount: 0, transports: [], name: 'Theft', createdAt: AT }), 'credential_taken');
    });

    test('when a use is recorded, then the counter and last-used time are read back', async (t) => {
      const { storage, userId } = await setUp(t);
      const created = await storage.passkeys.create({ userId, credentialId: 'cred-1', publicKey: 'pk', signCount: 0, transports: [], name: 'Laptop', createdAt: AT });
      assert.ok(created !== 'credential_taken');
      await storage.passkeys.recordUse(created.id, 7, LATER);
      assert.deepEqual(await storage.passkeys.findByCredentialId('cred-1'), { ...created, signCount: 7, lastUsedAt: LATER });
    });

    test('when a challenge is consumed, then it answers once, only for its purpose and before it expires, with its user', async (t) => {
      const { storage, userId } = await setUp(t);
      await storage.passkeys.createChallenge({ hash: hashOf(1), purpose: 'register', userId, expiresAt: LATER });
      await storage.passkeys.createChallenge({ hash: hashOf(2), purpose: 'sign_in', expiresAt: LATER });
      await storage.passkeys.createChallenge({ hash: hashOf(3), purpose: 'sign_in', expiresAt: AT });
      assert.equal(await storage.passkeys.consumeChallenge(hashOf(1), 'sign_in', AT), undefined, 'another purpose');
      assert.deepEqual(await storage.passkeys.consumeChallenge(hashOf(1), 'register', AT), { userId });
      assert.equal(await storage.passkeys.consumeChallenge(hashOf(1), 'register', AT), undefined, 'used once');
      assert.deepEqual(await storage.passkeys.consumeChallenge(hashOf(2), 'sign_in', AT), {});
      assert.equal(await storage.passkeys.consumeChallenge(hashOf(3), 'sign_in', AT), undefined, 'expired');
      assert.equal(await storage.passkeys.consumeChallenge(hashOf(4), 'sign_in', AT), undefined, 'unknown');
    });
  });
}
