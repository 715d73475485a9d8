/**
 * The Idempotency-Key part of the storage contract, the same cases on every
 * adapter: one claim of a key wins, a repeat sees the record as it stands, a
 * lapsed lease or an expired record can be taken over, only the claim's
 * holder completes or releases it, and expired records are pruned. (The
 * completion inside an order's own transaction is held by
 * test/orders/v2/orders-v2-place.test.ts on every backend.)
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { NewIdempotencyClaim } from '../../../src/idempotency/idempotency-repository.js';
import { openStorage } from '../../../src/storage/open-storage.js';
import { isoPlus, type ContractCoverage } from '../../support/storage-contract.js';
import { storageBackends } from '../../support/storage.js';

export const CONTRACT_COVERS = {
  idempotency: ['claim', 'complete', 'release', 'pruneExpired'],
} as const satisfies ContractCoverage;

const T0 = '2026-11-27T10:00:00.000Z';
const DAY = 24 * 60 * 60_000;
const RESPONSE = { status: 201, headers: { location: '/v2/store/orders/7' }, body: '{"id":7}' };

function claimOf(accountId: number, token: string, at = T0, key = 'order-7'): NewIdempotencyClaim {
  return { accountId, key, token, fingerprint: 'f'.repeat(64), now: at, lockedUntil: isoPlus(at, 60_000), expiresAt: isoPlus(at, DAY) };
}

for (const backend of storageBackends({ postgresDirect: true })) {
  describe(`idempotency storage contract: ${backend.name}`, () => {
    test('when ten connections claim one key at once, then exactly one holds it and the others see it in progress', async (t) => {
      const { storage, config } = await backend.freshDatabase(t);
      const { id: accountId } = await storage.accounts.create({ name: 'Main Street Pets', createdAt: T0 });
      const connections = Array.from({ length: 10 }, () => openStorage(config));
      t.after(() => Promise.all(connections.map((connection) => connection.close())));
      const outcomes = await Promise.all(connections.map((connection, i) => connection.idempotency.claim(claimOf(accountId, `token-${i}`))));
      assert.equal(outcomes.filter((outcome) => outcome.claimed).length, 1);
      for (const outcome of outcomes) if (!outcome.claimed) assert.deepEqual(outcome.held, { fingerprint: 'f'.repeat(64) });
    });

    test('when the holder completes, then a repeat gets the stored response; another account or key is its own; a stranger cannot complete or release it', async (t) => {
      const { storage } = await backend.freshDatabase(t);
      const { id: accountId } = await storage.accounts.create({ name: 'Main Street Pets', createdAt: T0 });
      const { id: otherAccount } = await storage.accounts.create({ name: 'Other Pets', createdAt: T0 });
      assert.deepEqual(await storage.idempotency.claim(claimOf(accountId, 'mine')), { claimed: true });
      assert.equal(await storage.idempotency.complete({ accountId, key: 'order-7', token: 'not-mine' }, RESPONSE), false, 'only the holder completes');
      await storage.idempotency.release({ accountId, key: 'order-7', token: 'not-mine' });
      assert.equal(await storage.idempotency.complete({ accountId, key: 'order-7', token: 'mine' }, RESPONSE), true);
      assert.deepEqual(await storage.idempotency.claim(claimOf(accountId, 'again', isoPlus(T0, 120_000))), { claimed: false, held: { fingerprint: 'f'.repeat(64), response: RESPONSE } }, 'complete: never taken over while it lives');
      assert.deepEqual(await storage.idempotency.claim(claimOf(otherAccount, 'theirs')), { claimed: true }, 'keys are per account');
      assert.deepEqual(await storage.idempotency.claim(claimOf(accountId, 'other-key', T0, 'order-8')), { claimed: true });
    });

    test('when a claim is released, its lease lapses or its record expires, then a repeat takes the key over and the old holder can no longer complete it', async (t) => {
      const { storage } = await backend.freshDatabase(t);
      const { id: accountId } = await storage.accounts.create({ name: 'Main Street Pets', createdAt: T0 });
      await storage.idempotency.claim(claimOf(accountId, 'first'));
      await storage.idempotency.release({ accountId, key: 'order-7', token: 'first' });
      assert.deepEqual(await storage.idempotency.claim(claimOf(accountId, 'second')), { claimed: true }, 'released: free again');
      assert.equal((await storage.idempotency.claim(claimOf(accountId, 'third', isoPlus(T0, 59_000)))).claimed, false, 'within the lease');
      assert.deepEqual(await storage.idempotency.claim(claimOf(accountId, 'third', isoPlus(T0, 60_000))), { claimed: true }, 'the lease lapsed');
      assert.equal(await storage.idempotency.complete({ accountId, key: 'order-7', token: 'second' }, RESPONSE), false, 'the old holder is fenced off');
      assert.equal(await storage.idempotency.complete({ accountId, key: 'order-7', token: 'third' }, RESPONSE), true);
      assert.deepEqual(await storage.idempotency.claim(claimOf(accountId, 'fourth', isoPlus(T0, DAY + 60_000))), { claimed: true }, 'an expired record is taken over, response and all');
    });

    test('when records expired, then pruning deletes them (at most the limit at a time) and keeps the live ones', async (t) => {
      const { storage } = await backend.freshDatabase(t);
      const { id: accountId } = await storage.accounts.create({ name: 'Main Street Pets', createdAt: T0 });
      for (let i = 0; i < 3; i++) await storage.idempotency.claim(claimOf(accountId, `old-${i}`, T0, `old-${i}`));
      await storage.idempotency.claim(claimOf(accountId, 'live', isoPlus(T0, DAY), 'live'));
      const after = isoPlus(T0, DAY + 1);
      assert.equal(await storage.idempotency.pruneExpired(after, 2), 2);
      assert.equal(await storage.idempotency.pruneExpired(after, 2), 1);
      assert.equal(await storage.idempotency.pruneExpired(after, 2), 0);
      assert.equal((await storage.idempotency.claim(claimOf(accountId, 'repeat', after, 'live'))).claimed, false, 'the live one is kept');
    });
  });
}
