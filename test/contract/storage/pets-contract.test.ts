/** The pets part of the storage contract: the same cases on every adapter. */
import assert from 'node:assert/strict';
import { describe, test, type TestContext } from 'node:test';
import { AppError } from '../../../src/errors/errors.js';
import { INT64_MAX, INT64_MIN } from '../../../src/shared/int64.js';
import type { Storage } from '../../../src/storage/storage.js';
import type { ContractCoverage } from '../../support/storage-contract.js';
import { storageBackends } from '../../support/storage.js';

export const CONTRACT_COVERS = {
  pets: ['create', 'findForAccount'],
} as const satisfies ContractCoverage;

const AT = '2026-11-22T10:00:00.000Z';

function rejectsWith(code: string) {
  return (error: unknown) => {
    assert.ok(error instanceof AppError, `expected an AppError, got ${String(error)}`);
    assert.equal(error.code, code);
    return true;
  };
}

for (const backend of storageBackends({ postgresDirect: true })) {
  describe(`pets storage: ${backend.name}`, () => {
    async function setUp(t: TestContext): Promise<{ storage: Storage; accountId: number; otherId: number }> {
      const { storage } = await backend.freshDatabase(t);
      const account = await storage.accounts.create({ name: 'Main Street Pets', createdAt: AT });
      const other = await storage.accounts.create({ name: 'Harbour Pets', createdAt: AT });
      return { storage, accountId: account.id, otherId: other.id };
    }

    test('when pets are created with and without ids, then they are returned as stored, int64 ids exact', async (t) => {
      const { storage, accountId } = await setUp(t);
      const first = await storage.pets.create({ accountId, name: 'Rex', createdAt: AT });
      assert.deepEqual(first, { id: first.id, accountId, name: 'Rex', createdAt: AT });
      assert.equal(typeof first.id, 'bigint');
      const max = await storage.pets.create({ id: INT64_MAX, accountId, name: 'Max', createdAt: AT });
      const min = await storage.pets.create({ id: INT64_MIN, accountId, name: 'Min', createdAt: AT });
      assert.equal(max.id, INT64_MAX);
      assert.equal(min.id, INT64_MIN);
      // An id chosen by storage never collides with an explicit one, even after int64's maximum is taken.
      const next = await storage.pets.create({ accountId, name: 'Next', createdAt: AT });
      assert.ok(![first.id, INT64_MAX, INT64_MIN].includes(next.id));
      assert.deepEqual(await storage.pets.findForAccount(accountId, INT64_MAX), max);
    });

    test("when a pet is looked up by another account or does not exist, then findForAccount returns undefined", async (t) => {
      const { storage, accountId, otherId } = await setUp(t);
      const pet = await storage.pets.create({ accountId, name: 'Rex', createdAt: AT });
      assert.equal(await storage.pets.findForAccount(otherId, pet.id), undefined);
      assert.equal(await storage.pets.findForAccount(accountId, 424242n), undefined);
    });

    test('when the id is taken or the account is unknown, then pet_id_taken or account_not_found', async (t) => {
      const { storage, accountId } = await setUp(t);
      await storage.pets.create({ id: 7n, accountId, name: 'Rex', createdAt: AT });
      await assert.rejects(storage.pets.create({ id: 7n, accountId, name: 'Rex', createdAt: AT }), rejectsWith('pet_id_taken'));
      await assert.rejects(storage.pets.create({ accountId: 999_999, name: 'Rex', createdAt: AT }), rejectsWith('account_not_found'));
    });
  });
}
