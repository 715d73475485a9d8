/** The secrets part of the storage contract: the same cases on every adapter. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { openStorage } from '../../../src/storage/open-storage.js';
import type { ContractCoverage } from '../../support/storage-contract.js';
import { storageBackends } from '../../support/storage.js';

export const CONTRACT_COVERS = {
  secrets: ['getOrCreate'],
} as const satisfies ContractCoverage;

const AT = '2026-11-22T10:00:00.000Z';

for (const backend of storageBackends({ postgresDirect: true })) {
  describe(`secrets storage contract: ${backend.name}`, () => {
    describe('secrets.getOrCreate', () => {
      test('when a name has no secret yet, then the candidate is stored, and every later call returns it whatever its candidate', async (t) => {
        const { storage } = await backend.freshDatabase(t);
        assert.equal(await storage.secrets.getOrCreate('cursor-key', 'first', AT), 'first');
        assert.equal(await storage.secrets.getOrCreate('cursor-key', 'second', AT), 'first');
        assert.equal(await storage.secrets.getOrCreate('other-key', 'third', AT), 'third', 'each name has its own secret');
        assert.equal(await storage.secrets.getOrCreate('cursor-key', 'fourth', AT), 'first');
      });

      test('when handles race on a fresh database, then every one gets the single value that won the insert', async (t) => {
        const { storage, config } = await backend.freshDatabase(t);
        const handles = [storage, openStorage(config), openStorage(config)];
        t.after(() => Promise.all(handles.slice(1).map((h) => h.close())));
        const candidates = Array.from({ length: 15 }, (_, i) => `candidate-${i}`);
        const values = await Promise.all(candidates.map((candidate, i) => (handles[i % handles.length] ?? storage).secrets.getOrCreate('cursor-key', candidate, AT)));
        const [winner = ''] = values;
        assert.ok(candidates.includes(winner), `got ${winner}`);
        assert.deepEqual(values, candidates.map(() => winner));
        assert.equal(await storage.secrets.getOrCreate('cursor-key', 'late', AT), winner);
      });
    });
  });
}
