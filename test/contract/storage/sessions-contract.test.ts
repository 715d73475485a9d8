/** The Sessions list's part (and the re-authentication time a session records) of the storage contract (listing a user's sessions, ending one by its handle): the same cases on every adapter. */
import assert from 'node:assert/strict';
import { describe, test, type TestContext } from 'node:test';
import type { Storage } from '../../../src/storage/storage.js';
import type { ContractCoverage } from '../../support/storage-contract.js';
import { storageBackends } from '../../support/storage.js';

export const CONTRACT_COVERS = {
  sessions: ['listForUser', 'deleteByHandle', 'markAuthenticated'],
} as const satisfies ContractCoverage;

const AT = '2026-11-22T10:00:00.000Z';
const LATER = '2026-11-22T11:00:00.000Z';
const END = '2026-11-22T22:00:00.000Z';
const hashOf = (n: number) => n.toString(16).padStart(64, '0');
const handleOf = (n: number) => n.toString(16).padStart(32, 'a');

for (const backend of storageBackends({ postgresDirect: true })) {
  describe(`sessions list storage: ${backend.name}`, () => {
    async function setUp(t: TestContext): Promise<{ storage: Storage; userId: number; otherId: number }> {
      const { storage } = await backend.freshDatabase(t);
      const account = await storage.accounts.create({ name: 'Main Street Pets', createdAt: AT });
      const user = await storage.users.create({ accountId: account.id, role: 'owner', email: 'ann@example.com', passwordHash: 'h', createdAt: AT });
      const other = await storage.users.create({ accountId: account.id, role: 'owner', email: 'bob@example.com', passwordHash: 'h', createdAt: AT });
      assert.ok(user !== 'email_taken' && other !== 'email_taken');
      await storage.sessions.create({ idHash: hashOf(1), userId: user.id, createdAt: AT, expiresAt: END, handle: handleOf(1), device: 'Firefox on Linux', address: '192.0.2.1' });
      await storage.sessions.create({ idHash: hashOf(2), userId: user.id, createdAt: LATER, expiresAt: END, handle: handleOf(2), device: 'Safari on iOS', address: '2001:db8::2' });
      await storage.sessions.create({ idHash: hashOf(3), userId: other.id, createdAt: AT, expiresAt: END, handle: handleOf(3), device: '', address: '' });
      return { storage, userId: user.id, otherId: other.id };
    }

    test('when a user’s sessions are listed, then they come newest first with device, address and times, only the asking one marked current, and never another user’s', async (t) => {
      const { storage, userId, otherId } = await setUp(t);
      await storage.sessions.touch(hashOf(1), '2026-11-22T12:00:00.000Z');
      assert.deepEqual(await storage.sessions.listForUser(userId, hashOf(1)), [
        { handle: handleOf(2), device: 'Safari on iOS', address: '2001:db8::2', createdAt: LATER, lastSeenAt: LATER, expiresAt: END, current: false },
        { handle: handleOf(1), device: 'Firefox on Linux', address: '192.0.2.1', createdAt: AT, lastSeenAt: '2026-11-22T12:00:00.000Z', expiresAt: END, current: true },
      ]);
      assert.deepEqual(
        (await storage.sessions.listForUser(userId, hashOf(3))).map((session) => session.current),
        [false, false],
        'another user’s session is never current in this list',
      );
      assert.deepEqual((await storage.sessions.listForUser(otherId, hashOf(3))).map((session) => session.handle), [handleOf(3)]);
    });

    test('when a session is ended by its handle, then only that session of that user ends; another user’s handle or an unknown one ends nothing', async (t) => {
      const { storage, userId, otherId } = await setUp(t);
      assert.equal(await storage.sessions.deleteByHandle(userId, handleOf(3)), false, 'another user’s session');
      assert.notEqual(await storage.sessions.find(hashOf(3)), undefined);
      assert.equal(await storage.sessions.deleteByHandle(userId, handleOf(9)), false);
      assert.equal(await storage.sessions.deleteByHandle(userId, handleOf(2)), true);
      assert.equal(await storage.sessions.find(hashOf(2)), undefined);
      assert.equal(await storage.sessions.deleteByHandle(userId, handleOf(2)), false, 'already ended');
      assert.notEqual(await storage.sessions.find(hashOf(1)), undefined);
      assert.deepEqual((await storage.sessions.listForUser(userId, hashOf(1))).map((session) => session.handle), [handleOf(1)]);
      assert.deepEqual((await storage.sessions.listForUser(otherId, hashOf(3))).map((session) => session.handle), [handleOf(3)]);
    });

    test('when a session is confirmed again, then its authentication time moves forward (never back) and stays the sign-in time until then', async (t) => {
      const { storage } = await setUp(t);
      assert.equal((await storage.sessions.find(hashOf(2)))?.authenticatedAt, LATER, 'the sign-in');
      await storage.sessions.markAuthenticated(hashOf(2), '2026-11-22T12:00:00.000Z');
      assert.equal((await storage.sessions.find(hashOf(2)))?.authenticatedAt, '2026-11-22T12:00:00.000Z');
      await storage.sessions.markAuthenticated(hashOf(2), '2026-11-22T11:30:00.000Z');
      assert.equal((await storage.sessions.find(hashOf(2)))?.authenticatedAt, '2026-11-22T12:00:00.000Z', 'never back');
      assert.equal((await storage.sessions.find(hashOf(1)))?.authenticatedAt, AT, 'another session is untouched');
    });
  });
}
