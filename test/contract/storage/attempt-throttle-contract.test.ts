/** The attempt throttle part of the storage contract: the same cases on every adapter. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { openStorage } from '../../../src/storage/open-storage.js';
import { isoPlus, type ContractCoverage } from '../../support/storage-contract.js';
import { storageBackends } from '../../support/storage.js';

export const CONTRACT_COVERS = {
  attemptThrottle: ['take', 'giveBack', 'peek', 'clear', 'pruneExpired'],
} as const satisfies ContractCoverage;

const AT = '2026-11-22T10:00:00.000Z';
const WINDOW_MS = 15 * 60_000;
const ENDS = isoPlus(AT, WINDOW_MS);
const keyOf = (n: number) => n.toString(16).padStart(64, '0');

for (const backend of storageBackends({ postgresDirect: true })) {
  describe(`attempt throttle storage contract: ${backend.name}`, () => {
    test('when a key takes attempts, then they count up to the limit in one window, the next is refused with its end, and a new window starts once it ends', async (t) => {
      const { storage } = await backend.freshDatabase(t);
      const key = keyOf(1);
      assert.equal(await storage.attemptThrottle.peek(key, AT), undefined);
      for (let i = 0; i < 3; i += 1) assert.deepEqual(await storage.attemptThrottle.take(key, { limit: 3, at: isoPlus(AT, i * 1000), windowEndsAt: isoPlus(AT, i * 1000 + WINDOW_MS) }), { taken: true });
      assert.deepEqual(await storage.attemptThrottle.peek(key, AT), { count: 3, endsAt: ENDS }, 'the window is the first attempt\u2019s');
      assert.deepEqual(await storage.attemptThrottle.take(key, { limit: 3, at: isoPlus(AT, 5000), windowEndsAt: isoPlus(AT, 5000 + WINDOW_MS) }), { taken: false, endsAt: ENDS });
      assert.deepEqual(await storage.attemptThrottle.peek(key, AT), { count: 3, endsAt: ENDS }, 'a refused attempt is not counted');
      assert.equal(await storage.attemptThrottle.peek(keyOf(2), AT), undefined, 'other keys have their own windows');
      assert.equal(await storage.attemptThrottle.peek(key, ENDS), undefined, 'an ended window is not live');
      assert.deepEqual(await storage.attemptThrottle.take(key, { limit: 3, at: ENDS, windowEndsAt: isoPlus(ENDS, WINDOW_MS) }), { taken: true });
      assert.deepEqual(await storage.attemptThrottle.peek(key, ENDS), { count: 1, endsAt: isoPlus(ENDS, WINDOW_MS) });
    });

    test('when an attempt is given back or a key cleared, then the live window counts one less (never below zero) or is gone', async (t) => {
      const { storage } = await backend.freshDatabase(t);
      const key = keyOf(1);
      await storage.attemptThrottle.take(key, { limit: 5, at: AT, windowEndsAt: ENDS });
      await storage.attemptThrottle.take(key, { limit: 5, at: AT, windowEndsAt: ENDS });
      await storage.attemptThrottle.giveBack(key, AT);
      assert.deepEqual(await storage.attemptThrottle.peek(key, AT), { count: 1, endsAt: ENDS });
      await storage.attemptThrottle.giveBack(key, AT);
      await storage.attemptThrottle.giveBack(key, AT);
      assert.deepEqual(await storage.attemptThrottle.peek(key, AT), { count: 0, endsAt: ENDS });
      await storage.attemptThrottle.giveBack(keyOf(9), AT);
      assert.equal(await storage.attemptThrottle.peek(keyOf(9), AT), undefined, 'giving back to no window makes none');
      await storage.attemptThrottle.clear(key);
      assert.equal(await storage.attemptThrottle.peek(key, AT), undefined);
    });

    test('when windows have ended, then pruneExpired deletes exactly those and says how many', async (t) => {
      const { storage } = await backend.freshDatabase(t);
      await storage.attemptThrottle.take(keyOf(1), { limit: 5, at: AT, windowEndsAt: ENDS });
      await storage.attemptThrottle.take(keyOf(2), { limit: 5, at: AT, windowEndsAt: isoPlus(ENDS, 1) });
      assert.equal(await storage.attemptThrottle.pruneExpired(AT), 0);
      assert.equal(await storage.attemptThrottle.pruneExpired(ENDS), 1);
      assert.deepEqual(await storage.attemptThrottle.peek(keyOf(2), AT), { count: 1, endsAt: isoPlus(ENDS, 1) });
      assert.deepEqual(await storage.attemptThrottle.take(keyOf(1), { limit: 5, at: AT, windowEndsAt: ENDS }), { taken: true }, 'a pruned key starts again');
    });

    test('when handles on one database take attempts on one key at once, then exactly the limit is taken', async (t) => {
      const { storage, config } = await backend.freshDatabase(t);
      const handles = [storage, openStorage(config), openStorage(config)];
      t.after(() => Promise.all(handles.slice(1).map((h) => h.close())));
      const results = await Promise.all(
        Array.from({ length: 24 }, (_, i) => (handles[i % handles.length] ?? storage).attemptThrottle.take(keyOf(1), { limit: 10, at: AT, windowEndsAt: ENDS })),
      );
      assert.equal(results.filter((r) => r.taken).length, 10);
      assert.deepEqual(await storage.attemptThrottle.peek(keyOf(1), AT), { count: 10, endsAt: ENDS });
    });
  });
}
