import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { rejectsWithCode } from '../support/storage-contract.js';
import { testServices } from '../support/container.js';
import { storageBackends } from '../support/storage.js';

for (const backend of storageBackends()) {
  describe(`audit service (${backend.name})`, () => {
    test('when records arrive together, then each lands once with its own account, and one for an unknown account fails alone', async (t) => {
      const { storage } = await backend.freshDatabase(t);
      const services = testServices(storage);
      const a = await services.accounts.createAccount({ name: 'A' });
      const b = await services.accounts.createAccount({ name: 'B' });
      const record = (accountId: number, id: number) =>
        services.audit.record({ accountId, action: 'order_cancelled', actor: { kind: 'key', id }, target: { kind: 'order', id: String(id) } });
      const outcomes = await Promise.allSettled([...Array.from({ length: 20 }, (_, i) => record(i % 2 === 0 ? a.id : b.id, i)), record(999_999, 99)]);
      assert.deepEqual(outcomes.slice(0, 20).map((o) => o.status), Array(20).fill('fulfilled'));
      const failed = outcomes[20];
      assert.ok(failed?.status === 'rejected');
      assert.ok(rejectsWithCode('account_not_found')(failed.reason));
      const ids = async (accountId: number) => (await services.audit.list(accountId, { limit: 200 })).entries.map((e) => Number(e.target?.id)).sort((x, y) => x - y);
      assert.deepEqual(await ids(a.id), [0, 2, 4, 6, 8, 10, 12, 14, 16, 18]);
      assert.deepEqual(await ids(b.id), [1, 3, 5, 7, 9, 11, 13, 15, 17, 19]);
    });

    test('when details are too many, badly named or too long, then record refuses them (validation_failed) and writes nothing', async (t) => {
      const { storage } = await backend.freshDatabase(t);
      const services = testServices(storage);
      const { id: accountId } = await services.accounts.createAccount({ name: 'A' });
      const base = { accountId, action: 'user_created' as const, actor: { kind: 'system' as const } };
      const nine = Object.fromEntries(Array.from({ length: 9 }, (_, i) => [`k${i}`, i]));
      for (const details of [nine, { 'Bad-Name': 1 }, { note: 'x'.repeat(201) }, { ratio: Number.NaN }]) {
        await assert.rejects(services.audit.record({ ...base, details }), rejectsWithCode('validation_failed'));
      }
      await services.audit.record({ ...base, details: { note: 'x'.repeat(200), ok: true, n: 1.5 } });
      assert.equal((await services.audit.list(accountId)).entries.length, 1);
    });

    test('when an after-change record cannot be written, then it resolves anyway and every listener hears of it until unsubscribed', async (t) => {
      const { storage } = await backend.freshDatabase(t);
      const services = testServices(storage);
      const heard: string[] = [];
      const stop = services.audit.onRecordFailed((error, entry) => heard.push(`${entry.action} ${entry.accountId}: ${(error as Error).message}`));
      await services.audit.recordAfterChange({ accountId: 424242, action: 'order_shipped', actor: { kind: 'operator' } });
      assert.deepEqual(heard, ['order_shipped 424242: Account 424242 does not exist.']);
      stop();
      await services.audit.recordAfterChange({ accountId: 424242, action: 'order_shipped', actor: { kind: 'operator' } });
      assert.equal(heard.length, 1);
    });

    test('when an action concerns several accounts, then each gets one entry; when the accounts cannot be read, it resolves anyway and the listeners hear of the entry without an account', async (t) => {
      const { storage } = await backend.freshDatabase(t);
      const services = testServices(storage);
      const a = await services.accounts.createAccount({ name: 'A' });
      const b = await services.accounts.createAccount({ name: 'B' });
      const input = { action: 'authn_password_change', actor: { kind: 'user', id: 7 }, details: { reason: 'reset' } } as const;
      await services.audit.recordInEachAfterChange(async () => [a.id, b.id], input);
      for (const accountId of [a.id, b.id]) {
        assert.deepEqual((await services.audit.list(accountId)).entries.map((entry) => [entry.action, entry.actor, entry.details]), [[input.action, input.actor, input.details]]);
      }
      const heard: unknown[] = [];
      services.audit.onRecordFailed((error, entry) => heard.push([(error as Error).message, entry.action, entry.accountId]));
      await services.audit.recordInEachAfterChange(() => Promise.reject(new Error('the database went away')), input);
      assert.deepEqual(heard, [['the database went away', 'authn_password_change', undefined]]);
      await services.audit.recordInEachAfterChange(async () => [], input);
      assert.equal((await services.audit.list(a.id)).entries.length, 1, 'no account, no entry');
    });
  });
}
