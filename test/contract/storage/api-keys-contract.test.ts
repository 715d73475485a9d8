/**
 * The API keys contract beyond test/contract/storage/storage-contract.test.ts: that
 * roll is atomic (all of it or none of it) and that revoke decides once,
 * also against another connection. The same cases on every adapter.
 */
import assert from 'node:assert/strict';
import { describe, test, type TestContext } from 'node:test';
import { API_KEY_SCOPES } from '../../../src/api-keys/api-key-scopes.js';
import type { NewApiKey } from '../../../src/api-keys/api-keys-repository.js';
import { openStorage } from '../../../src/storage/open-storage.js';
import type { Storage } from '../../../src/storage/storage.js';
import { isoPlus, type ContractCoverage } from '../../support/storage-contract.js';
import { storageBackends } from '../../support/storage.js';

export const CONTRACT_COVERS = {
  apiKeys: ['roll', 'revoke'],
} as const satisfies ContractCoverage;

const T0 = '2026-11-22T10:00:00.000Z';
const at = (ms: number) => isoPlus(T0, ms);
const DAY_MS = 24 * 60 * 60 * 1000;
const hash = (n: number) => n.toString(16).padStart(64, '0');

for (const backend of storageBackends({ postgresDirect: true })) {
  describe(`api keys storage contract: ${backend.name}`, () => {
    async function setUp(t: TestContext): Promise<{ storage: Storage; other: Storage; accountId: number; newKey: (n: number) => NewApiKey }> {
      const { storage, config } = await backend.freshDatabase(t);
      const other = openStorage(config);
      t.after(() => other.close());
      const { id: accountId } = await storage.accounts.create({ name: 'Main Street Pets', createdAt: T0 });
      const newKey = (n: number): NewApiKey => ({
        accountId, name: `key ${n}`, hash: hash(n), start: `so_prod_${n}`, createdAt: T0, expiresAt: at(DAY_MS), scopes: API_KEY_SCOPES,
      });
      return { storage, other, accountId, newKey };
    }

    describe('apiKeys.roll', () => {
      test('when the replacement cannot be stored (its hash is taken), then roll fails and writes nothing', async (t) => {
        const { storage, accountId, newKey } = await setUp(t);
        const old = await storage.apiKeys.create(newKey(1));
        const taken = await storage.apiKeys.create(newKey(2));
        // The insert fails after the old key's expiry was moved: both writes or neither.
        await assert.rejects(storage.apiKeys.roll(old, { key: { ...newKey(2), createdAt: at(1000) }, oldExpiresAt: at(2000) }));
        assert.deepEqual(await storage.apiKeys.listByAccount(accountId), [old, taken]);
        assert.equal((await storage.apiKeys.findActiveByHash(hash(1)))?.expiresAt, at(DAY_MS));
      });

      test('when a roll races a revoke on another connection, then the key ends revoked, and a replacement exists only if the roll said rolled', async (t) => {
        const { storage, other, accountId, newKey } = await setUp(t);
        let rolled = 0;
        for (let n = 1; n <= 8; n++) {
          const key = await storage.apiKeys.create(newKey(n));
          const [roll, revoke] = await Promise.all([
            storage.apiKeys.roll(key, { key: { ...newKey(100 + n), scopes: key.scopes, createdAt: at(1000) }, oldExpiresAt: at(5000) }),
            other.apiKeys.revoke(key.id, at(1000)),
          ]);
          assert.equal(revoke, 'revoked');
          assert.ok(roll.outcome === 'rolled' || roll.outcome === 'changed', `key ${n}: ${roll.outcome}`);
          if (roll.outcome === 'rolled') rolled++;
          assert.equal(await storage.apiKeys.findActiveByHash(hash(n)), undefined);
          assert.equal((await storage.apiKeys.findActiveByHash(hash(100 + n)))?.accountId, roll.outcome === 'rolled' ? accountId : undefined);
        }
        assert.equal((await storage.apiKeys.listByAccount(accountId)).length, 8 + rolled);
      });
    });

    describe('apiKeys.revoke', () => {
      test('when revokes of one key run at once on two connections, then exactly one revokes it and its time is the one stored', async (t) => {
        const { storage, other, newKey } = await setUp(t);
        const key = await storage.apiKeys.create(newKey(1));
        const outcomes = await Promise.all(Array.from({ length: 10 }, (_, i) => (i % 2 === 0 ? storage : other).apiKeys.revoke(key.id, at(i))));
        assert.deepEqual([...outcomes].sort(), ['already_revoked', ...Array.from({ length: 8 }, () => 'already_revoked'), 'revoked'].sort());
        const winner = outcomes.indexOf('revoked');
        assert.deepEqual(await storage.apiKeys.listByAccount(key.accountId), [{ ...key, revokedAt: at(winner) }]);
      });
    });
  });
}
