/**
 * The failure notices part of the storage contract, the same cases on every
 * adapter: a settlement that disables an endpoint (410, failing for 5 days)
 * starts its notice in the same transaction and tells the process after the
 * commit; the notice is listed for its account until a user acknowledges it
 * or the endpoint is enabled again, and the next disabling is a new one.
 */
import assert from 'node:assert/strict';
import { describe, test, type TestContext } from 'node:test';
import { systemClock } from '../../../src/shared/clock.js';
import type { SystemDisableReason } from '../../../src/webhooks/notices/webhook-notices-repository.js';
import { readSql } from '../../support/raw-sql.js';
import { failInserts, type ContractCoverage } from '../../support/storage-contract.js';
import { storageBackends, type TestBackend } from '../../support/storage.js';
import { signedUpOwner } from '../../support/portal.js';
import { startHookReceiver, webhooksHarness } from '../../webhooks/support.js';

export const CONTRACT_COVERS = {
  webhookNotices: ['listUnacknowledged', 'acknowledge'],
} as const satisfies ContractCoverage;

const FAR = '9999-12-31T00:00:00.000Z';
const GONE = 'The endpoint answered HTTP 410 Gone.';
const FAILING = 'Every delivery attempt failed for 5 days.';
const DAY = 24 * 60 * 60 * 1000;

/** A user's account (a user can acknowledge) with an endpoint subscribed to order.created, and a way to queue a delivery to it. */
async function accountWithEndpoint(t: TestContext, backend: TestBackend) {
  const h = await webhooksHarness(t, backend);
  // The harness's services run on the system clock.
  const user = await signedUpOwner({ storage: h.storage, services: h.services, clock: systemClock }, { storeName: 'Noticed' });
  const receiver = await startHookReceiver(t);
  const { endpoint } = await h.services.webhooks.createEndpoint(user.accountId, { url: receiver.url, eventTypes: ['order.created'] });
  /** Queues one delivery and claims it for `claimant` at `now`. */
  const claimOne = async (claimant: string, now: string) => {
    await h.services.orderOperations.createOrder({ accountId: user.accountId });
    const [claimed] = await h.storage.webhooks.claimDue({ claimant, now, claimedUntil: FAR, limit: 1 });
    assert.ok(claimed, 'a delivery to claim');
    return claimed;
  };
  return { h, user, endpoint, claimOne };
}

for (const backend of storageBackends()) {
  describe(`webhook notices storage contract: ${backend.name}`, () => {
    test('when a receiver answers 410, then the notice is listed for its account only, with URL, reason and time; acknowledging records who and when, once', async (t) => {
      const { h, user, endpoint, claimOne } = await accountWithEndpoint(t, backend);
      const other = await h.tenant();
      assert.deepEqual(await h.storage.webhookNotices.listUnacknowledged(user.accountId), [], 'enabled: no notice');
      const at = new Date(Date.now() + 1000).toISOString();
      const claimed = await claimOne('a', at);
      assert.equal(await h.storage.webhooks.markAttemptFailed({ id: claimed.id, claimant: 'a', at, error: 'HTTP 410', statusCode: 410, gone: true }), true);

      const notice = { endpointId: endpoint.id, url: endpoint.url, reason: GONE, disabledAt: at };
      assert.deepEqual(await h.storage.webhookNotices.listUnacknowledged(user.accountId), [notice]);
      assert.deepEqual(await h.storage.webhookNotices.listUnacknowledged(other.accountId), []);
      const ackAt = new Date(Date.now() + 2000).toISOString();
      assert.equal(await h.storage.webhookNotices.acknowledge({ accountId: other.accountId, endpointId: endpoint.id, userId: user.id, at: ackAt }), undefined, "another account's");
      assert.deepEqual(await h.storage.webhookNotices.acknowledge({ accountId: user.accountId, endpointId: endpoint.id, userId: user.id, at: ackAt }), notice);
      assert.deepEqual(await h.storage.webhookNotices.listUnacknowledged(user.accountId), []);
      assert.equal(await h.storage.webhookNotices.acknowledge({ accountId: user.accountId, endpointId: endpoint.id, userId: user.id, at: FAR }), undefined, 'once');
      const [row] = await readSql(h.database, `SELECT notice_acknowledged_by AS who FROM webhook_endpoints WHERE id = '${endpoint.id}'`);
      assert.equal(Number(row?.who), user.id);
      // Still disabled, and says why: acknowledging is not enabling.
      assert.deepEqual(await h.storage.webhooks.findEndpoint(user.accountId, endpoint.id).then((e) => [e?.status, e?.disabledReason]), ['disabled', GONE]);
    });

    test('when an acknowledged endpoint is enabled and then fails for 5 days, then that is a new notice; enabling clears one, and a person disabling makes none', async (t) => {
      const { h, user, endpoint, claimOne } = await accountWithEndpoint(t, backend);
      const t0 = Date.now() + 1000;
      const iso = (ms: number) => new Date(t0 + ms).toISOString();
      const first = await claimOne('a', iso(0));
      await h.storage.webhooks.markAttemptFailed({ id: first.id, claimant: 'a', at: iso(0), error: 'HTTP 410', statusCode: 410, gone: true });
      assert.ok(await h.storage.webhookNotices.acknowledge({ accountId: user.accountId, endpointId: endpoint.id, userId: user.id, at: iso(1) }));

      await h.storage.webhooks.updateEndpoint(user.accountId, endpoint.id, { status: 'enabled' });
      // The earlier delivery was given up; a new one fails for 5 days.
      const second = await claimOne('b', iso(DAY));
      await h.storage.webhooks.markAttemptFailed({ id: second.id, claimant: 'b', at: iso(DAY), error: 'HTTP 500', statusCode: 500, retryAt: iso(6 * DAY) });
      assert.deepEqual(await h.storage.webhookNotices.listUnacknowledged(user.accountId), [], 'failing, not yet disabled');
      const [again] = await h.storage.webhooks.claimDue({ claimant: 'c', now: iso(6 * DAY), claimedUntil: FAR, limit: 1 });
      assert.equal(again?.id, second.id);
      await h.storage.webhooks.markAttemptFailed({ id: second.id, claimant: 'c', at: iso(6 * DAY), error: 'HTTP 500', statusCode: 500, retryAt: iso(7 * DAY) });
      assert.deepEqual(await h.storage.webhookNotices.listUnacknowledged(user.accountId), [{ endpointId: endpoint.id, url: endpoint.url, reason: FAILING, disabledAt: iso(6 * DAY) }]);

      // Enabled again without anyone acknowledging: the notice goes; a person disabling it is no notice.
      await h.storage.webhooks.updateEndpoint(user.accountId, endpoint.id, { status: 'enabled' });
      assert.deepEqual(await h.storage.webhookNotices.listUnacknowledged(user.accountId), []);
      assert.equal(await h.storage.webhookNotices.acknowledge({ accountId: user.accountId, endpointId: endpoint.id, userId: user.id, at: iso(7 * DAY) }), undefined);
      await h.storage.webhooks.updateEndpoint(user.accountId, endpoint.id, { status: 'disabled' });
      assert.deepEqual(await h.storage.webhookNotices.listUnacknowledged(user.accountId), []);
    });

    test('when settlements disable an endpoint, then onEndpointDisabled tells each disabling once, after its commit, and nothing of one rolled back', async (t) => {
      const { h, user, endpoint, claimOne } = await accountWithEndpoint(t, backend);
      const told: SystemDisableReason[] = [];
      t.after(h.storage.onEndpointDisabled((reason) => told.push(reason)));
      const now = new Date(Date.now() + 1000).toISOString();
      const first = await claimOne('a', now);
      const second = await claimOne('a', now);
      const gone = { claimant: 'a', at: now, error: 'HTTP 410', statusCode: 410, gone: true };

      // The audit entry cannot be written: the disabling rolls back, and nothing is told.
      const failure = failInserts(h.database, 'audit_events');
      await failure.arm();
      try {
        await assert.rejects(h.storage.webhooks.markAttemptFailed({ ...gone, id: first.id }), /forced failure/);
      } finally {
        await failure.allow();
      }
      assert.deepEqual(told, []);
      assert.deepEqual(await h.storage.webhookNotices.listUnacknowledged(user.accountId), []);

      // Two attempts answered 410 at once: one disabling, told once.
      assert.deepEqual(await Promise.all([first, second].map(({ id }) => h.storage.webhooks.markAttemptFailed({ ...gone, id }))), [true, true]);
      assert.deepEqual(told, ['gone']);

      // The batch settlement (SQLite's settleMany, one commit) tells its disablings too.
      const { settleMany } = h.storage.webhooks;
      if (settleMany !== undefined) {
        await h.storage.webhooks.updateEndpoint(user.accountId, endpoint.id, { status: 'enabled' });
        const third = await claimOne('b', FAR);
        await settleMany.call(h.storage.webhooks, [{ sent: false, settlement: { ...gone, claimant: 'b', id: third.id } }]);
        assert.deepEqual(told, ['gone', 'gone']);
      }
    });
  });
}
