import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config/config.js';
import { testConfig, testServices } from '../support/container.js';
import { waitFor } from '../support/process.js';
import { manualClock } from '../support/quickstart.js';
import { storageBackends } from '../support/storage.js';

const DAY_MS = 86_400_000;

for (const backend of storageBackends()) {
  describe(`audit trail retention (${backend.name})`, () => {
    test('when entries are older than AUDIT_RETENTION_DAYS, then prune deletes them, in every account, and keeps the younger ones', async (t) => {
      const { storage } = await backend.freshDatabase(t);
      const clock = manualClock();
      const services = testServices(storage, { config: testConfig({ AUDIT_RETENTION_DAYS: '30' }), clock });
      const a = await services.accounts.createAccount({ name: 'A' });
      const b = await services.accounts.createAccount({ name: 'B' });
      const record = (accountId: number, id: string) =>
        services.audit.record({ accountId, action: 'order_shipped', actor: { kind: 'operator' }, target: { kind: 'order', id } });
      await record(a.id, 'old-a');
      await record(b.id, 'old-b');
      clock.advance(2 * DAY_MS);
      await record(a.id, 'young-a');
      clock.advance(29 * DAY_MS);

      assert.equal(await services.audit.prune(), 2);
      assert.deepEqual((await services.audit.list(a.id)).entries.map((e) => e.target?.id), ['young-a']);
      assert.deepEqual((await services.audit.list(b.id)).entries, []);
      assert.equal(await services.audit.prune(), 0);
    });

    test('when pruning runs in the background, then it prunes at once and on every interval until stopped', async (t) => {
      const { storage } = await backend.freshDatabase(t);
      const clock = manualClock();
      const services = testServices(storage, { config: testConfig({ AUDIT_RETENTION_DAYS: '1' }), clock });
      const account = await services.accounts.createAccount({ name: 'A' });
      const oldEntry = () => services.audit.record({ accountId: account.id, action: 'order_shipped', actor: { kind: 'system' } });
      const count = async () => (await services.audit.list(account.id)).entries.length;
      await oldEntry();
      clock.advance(2 * DAY_MS);
      const failures: unknown[] = [];
      services.audit.startPruning(20, (error) => failures.push(error));
      t.after(() => services.audit.stopPruning());
      await waitFor(async () => (await count()) === 0, 'the first prune');

      clock.advance(-2 * DAY_MS);
      await oldEntry();
      clock.advance(2 * DAY_MS);
      await waitFor(async () => (await count()) === 0, 'a later prune');

      await services.audit.stopPruning();
      clock.advance(-2 * DAY_MS);
      await oldEntry();
      clock.advance(2 * DAY_MS);
      // Several intervals pass: nothing prunes any more.
      await new Promise((resolve) => setTimeout(resolve, 150));
      assert.equal(await count(), 1);
      assert.deepEqual(failures, []);
    });
  });
}

describe('audit trail configuration', () => {
  test('when AUDIT_RETENTION_DAYS and AUDIT_PRUNE_INTERVAL_MS are set, then they are read; out of range, then refused by name', () => {
    assert.deepEqual(loadConfig({}, '/srv').audit, { retentionDays: 90, pruneIntervalMs: 3_600_000 });
    assert.deepEqual(loadConfig({ AUDIT_RETENTION_DAYS: '365', AUDIT_PRUNE_INTERVAL_MS: '60000' }, '/srv').audit, { retentionDays: 365, pruneIntervalMs: 60_000 });
    assert.throws(
      () => loadConfig({ AUDIT_RETENTION_DAYS: '0', AUDIT_PRUNE_INTERVAL_MS: '10' }, '/srv'),
      (error: unknown) => error instanceof ConfigError && /AUDIT_RETENTION_DAYS/.test(error.message) && /AUDIT_PRUNE_INTERVAL_MS/.test(error.message),
    );
  });
});
