/**
 * The usage part of the storage contract, the same cases on every adapter:
 * the per account-hour counters are added to (an upsert) in the request
 * logs' batch, atomically with it, and in a webhook delivery's settlement,
 * for the endpoint's account; read back per account by hour range; pruned
 * by age in bounded rounds.
 */
import assert from 'node:assert/strict';
import { describe, test, type TestContext } from 'node:test';
import { AppError } from '../../../src/errors/errors.js';
import type { NewRequestLog } from '../../../src/request-logs/request-logs-repository.js';
import { USAGE_COUNTERS, usageOfRequests, type UsageCounter, type UsageHour } from '../../../src/usage/usage-counters.js';
import type { ContractCoverage } from '../../support/storage-contract.js';
import { storageBackends } from '../../support/storage.js';
import { startHookReceiver, webhooksHarness } from '../../webhooks/support.js';
import { storedRequests } from '../../../src/request-logs/stored-requests.js';

export const CONTRACT_COVERS = {
  usage: ['listHours', 'deleteBefore'],
} as const satisfies ContractCoverage;

const T0 = Date.parse('2026-11-27T10:00:00.000Z');
const at = (minutes: number) => new Date(T0 + minutes * 60_000).toISOString();

function request(accountId: number, minutes: number, status: number, durationMs: number): NewRequestLog {
  return { accountId, at: at(minutes), method: 'GET', path: '/v1/store/orders', status, durationMs, requestId: `req-${minutes}-${status}` };
}

/** The counters that are not zero: what a case asserts. */
function nonZero(hours: readonly UsageHour[]): { hour: string; counts: Partial<Record<UsageCounter, number>> }[] {
  return hours.map(({ hour, counts }) => ({ hour, counts: Object.fromEntries(USAGE_COUNTERS.filter((c) => counts[c] !== 0).map((c) => [c, counts[c]])) }));
}

for (const backend of storageBackends({ postgresDirect: true })) {
  describe(`usage storage contract: ${backend.name}`, () => {
    async function setUp(t: TestContext) {
      const { storage } = await backend.freshDatabase(t);
      const account = await storage.accounts.create({ name: 'Main Street Pets', createdAt: at(0) });
      const other = await storage.accounts.create({ name: 'Harbour Pets', createdAt: at(0) });
      return { storage, account, other };
    }

    test('when batches of request logs are appended with their usage, then each account-hour adds up every batch, per account, by hour', async (t) => {
      const { storage, account, other } = await setUp(t);
      const first = [request(account.id, 1, 200, 0.4), request(account.id, 2, 404, 12), request(other.id, 3, 500, 6000)];
      await storage.requestLogs.append(storedRequests(first), usageOfRequests(storedRequests(first)));
      const second = [request(account.id, 59, 201, 1), request(account.id, 61, 302, 2.5), request(account.id, 62, 503, 45)];
      await storage.requestLogs.append(storedRequests(second), usageOfRequests(storedRequests(second)));
      await storage.requestLogs.append(storedRequests([]), []);
      const hours = await storage.usage.listHours(account.id, at(-60), at(180));
      assert.deepEqual(nonZero(hours), [
        { hour: at(0), counts: { requests_2xx: 2, requests_4xx: 1, latency_le_1: 2, latency_le_13: 1 } },
        { hour: at(60), counts: { requests_3xx: 1, requests_5xx: 1, latency_le_3: 1, latency_le_50: 1 } },
      ]);
      assert.deepEqual(nonZero(await storage.usage.listHours(other.id, at(0), at(60))), [{ hour: at(0), counts: { requests_5xx: 1, latency_over: 1 } }]);
      assert.deepEqual(await storage.usage.listHours(account.id, at(0), at(60)), hours.slice(0, 1), 'the range is half-open');
      assert.deepEqual(await storage.usage.listHours(account.id, at(120), at(180)), []);
    });

    test('when a batch names an unknown account, then neither its logs nor its usage are written', async (t) => {
      const { storage, account } = await setUp(t);
      const batch = [request(account.id, 1, 200, 1), request(999_999, 1, 200, 1)];
      await assert.rejects(storage.requestLogs.append(storedRequests(batch), usageOfRequests(storedRequests(batch))), (error: unknown) => error instanceof AppError && error.code === 'account_not_found');
      assert.deepEqual(await storage.usage.listHours(account.id, at(0), at(60)), []);
      assert.deepEqual(await storage.requestLogs.listPage({ accountId: account.id, filters: {}, limit: 10 }), []);
    });

    test('when hours are pruned, then only those before the cutoff go, at most `limit` a call, of every account', async (t) => {
      const { storage, account, other } = await setUp(t);
      const batch = [request(account.id, 0, 200, 1), request(account.id, 60, 200, 1), request(other.id, 61, 200, 1), request(account.id, 120, 200, 1)];
      await storage.requestLogs.append(storedRequests(batch), usageOfRequests(storedRequests(batch)));
      assert.equal(await storage.usage.deleteBefore(at(61), 2), 2);
      assert.equal(await storage.usage.deleteBefore(at(61), 2), 1);
      assert.equal(await storage.usage.deleteBefore(at(61), 2), 0);
      assert.deepEqual((await storage.usage.listHours(account.id, at(0), at(240))).map((h) => h.hour), [at(120)]);
      assert.deepEqual(await storage.usage.listHours(other.id, at(0), at(240)), []);
    });

    test("when webhook deliveries are settled, then the endpoint's account counts each success, failed attempt and delivery given up in the hour it ended", async (t) => {
      const h = await webhooksHarness(t, backend);
      const { accountId, auth } = await h.tenant();
      const other = await h.tenant();
      const receiver = await startHookReceiver(t);
      const created = await h.app.inject({ method: 'POST', url: '/v2/webhook-endpoints', headers: { ...auth, 'content-type': 'application/json' }, payload: { url: receiver.url, eventTypes: ['order.created'] } });
      assert.equal(created.statusCode, 201);
      for (let i = 0; i < 3; i++) await h.services.orderOperations.createOrder({ accountId });
      const t0 = Date.parse('2030-01-01T08:00:00.000Z');
      const when = (ms: number) => new Date(t0 + ms).toISOString();
      const claimed = await h.storage.webhooks.claimDue({ claimant: 'c', now: when(0), claimedUntil: when(60_000), limit: 10 });
      assert.equal(claimed.length, 3);
      const [sent, retried, givenUp] = claimed as [(typeof claimed)[0], (typeof claimed)[0], (typeof claimed)[0]];
      assert.equal(await h.storage.webhooks.markSent({ id: sent.id, claimant: 'c', at: when(10), statusCode: 200, durationMs: 3 }), true);
      assert.equal(await h.storage.webhooks.markAttemptFailed({ id: retried.id, claimant: 'c', at: when(20), statusCode: 500, error: 'The endpoint answered HTTP 500.', retryAt: when(1000) }), true);
      assert.equal(await h.storage.webhooks.markAttemptFailed({ id: givenUp.id, claimant: 'c', at: when(3_600_000), statusCode: 500, error: 'The endpoint answered HTTP 500.' }), true);
      assert.equal(await h.storage.webhooks.markSent({ id: sent.id, claimant: 'c', at: when(30) }), false, 'a settlement no longer held counts nothing');
      assert.deepEqual(nonZero(await h.storage.usage.listHours(accountId, when(0), when(7_200_000))), [
        { hour: when(0), counts: { deliveries_succeeded: 1, delivery_attempts_failed: 1 } },
        { hour: when(3_600_000), counts: { deliveries_failed: 1 } },
      ]);
      assert.deepEqual(await h.storage.usage.listHours(other.accountId, when(0), when(7_200_000)), []);
    });
  });
}
