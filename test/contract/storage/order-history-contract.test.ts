/**
 * The reads of an order's history (the portal's /orders/<id>), the same
 * cases on every adapter: the request logs whose path names the order (not a
 * longer id, not another account's), the events feed filtered by subject,
 * the deliveries of given events with their endpoints, and the audit entry
 * an order placed by someone the trail names writes in its own transaction.
 */
import assert from 'node:assert/strict';
import { describe, test, type TestContext } from 'node:test';
import type { NewRequestLog, RequestLog } from '../../../src/request-logs/request-logs-repository.js';
import type { Storage } from '../../../src/storage/storage.js';
import type { ContractCoverage } from '../../support/storage-contract.js';
import { storageBackends } from '../../support/storage.js';
import { storedRequests } from '../../../src/request-logs/stored-requests.js';

export const CONTRACT_COVERS = {
  requestLogs: ['listForOrder'],
  events: ['listPage'],
  webhooks: ['listEventDeliveries'],
  orders: ['create'],
} as const satisfies ContractCoverage;

const T0 = Date.parse('2026-11-27T10:00:00.000Z');
const at = (seconds: number) => new Date(T0 + seconds * 1000).toISOString();

function entry(accountId: number, seconds: number, path: string, fields: Partial<NewRequestLog> = {}): NewRequestLog {
  return { accountId, at: at(seconds), method: 'GET', path, status: 200, durationMs: 1.5, requestId: `req-${seconds}`, ...fields };
}

const paths = (logs: readonly RequestLog[]) => logs.map((log) => log.path);

async function endpoint(storage: Storage, accountId: number, n: number, eventTypes: string[] | null = null) {
  const created = await storage.webhooks.createEndpoint(
    { id: `we_${String(n).padStart(32, '0')}`, accountId, url: `https://hooks.example.com/${n}`, eventTypes, description: null, rateLimit: null, sealedSecret: 'sealed', createdAt: at(0) },
    { maxPerAccount: 10 },
  );
  assert.ok(typeof created === 'object');
  return created;
}

for (const backend of storageBackends({ postgresDirect: true })) {
  describe(`order history storage contract: ${backend.name}`, () => {
    async function setUp(t: TestContext) {
      const { storage } = await backend.freshDatabase(t);
      const account = await storage.accounts.create({ name: 'Main Street Pets', createdAt: at(0) });
      const other = await storage.accounts.create({ name: 'Harbour Pets', createdAt: at(0) });
      return { storage, account, other };
    }

    test('when requests name an order in their paths, then listForOrder finds exactly those of the account, newest first, up to the limit', async (t) => {
      const { storage, account, other } = await setUp(t);
      await storage.requestLogs.append(storedRequests([
        entry(account.id, 1, '/v1/store/orders/42', { method: 'DELETE', status: 204 }),
        entry(account.id, 2, '/v2/store/orders/42'),
        entry(account.id, 3, '/v2/store/orders/42?fields=status'),
        entry(account.id, 4, '/v2/store/orders/42/'),
        // Not order 42: a longer or shorter id, no id, an id that is not one, another case, a listing filtered by 42.
        entry(account.id, 5, '/v1/store/orders/420'),
        entry(account.id, 6, '/v1/store/orders/4'),
        entry(account.id, 7, '/v1/store/orders'),
        entry(account.id, 8, '/v1/store/orders/42abc'),
        entry(account.id, 9, '/V1/STORE/ORDERS/42'),
        entry(account.id, 10, '/v2/store/orders?petId=42'),
        entry(account.id, 11, '/v1/store/orders/042'),
        entry(account.id, 12, '/v2/audit-events/42'),
        // Another account's request to its own order 42.
        entry(other.id, 13, '/v1/store/orders/42'),
      ]), []);
      const mine = await storage.requestLogs.listForOrder({ accountId: account.id, orderId: 42n, limit: 10 });
      assert.deepEqual(paths(mine), ['/v2/store/orders/42/', '/v2/store/orders/42?fields=status', '/v2/store/orders/42', '/v1/store/orders/42']);
      assert.equal(mine.at(-1)?.method, 'DELETE');
      assert.equal(mine.at(-1)?.status, 204);
      assert.deepEqual(paths(await storage.requestLogs.listForOrder({ accountId: account.id, orderId: 42n, limit: 2 })), ['/v2/store/orders/42/', '/v2/store/orders/42?fields=status']);
      assert.deepEqual(paths(await storage.requestLogs.listForOrder({ accountId: account.id, orderId: 420n, limit: 10 })), ['/v1/store/orders/420']);
      assert.deepEqual(paths(await storage.requestLogs.listForOrder({ accountId: other.id, orderId: 42n, limit: 10 })), ['/v1/store/orders/42']);
      assert.deepEqual(await storage.requestLogs.listForOrder({ accountId: account.id, orderId: 7n, limit: 10 }), []);
    });

    test('when the largest int64 id is named, then its requests are found by it', async (t) => {
      const { storage, account } = await setUp(t);
      await storage.requestLogs.append(storedRequests([entry(account.id, 1, '/v2/store/orders/9223372036854775807'), entry(account.id, 2, '/v2/store/orders/922337203685477580')]), []);
      assert.deepEqual(paths(await storage.requestLogs.listForOrder({ accountId: account.id, orderId: 9_223_372_036_854_775_807n, limit: 10 })), ['/v2/store/orders/9223372036854775807']);
    });

    test("when the feed is filtered by an order's subject, then only that order's events are listed, in position order, and another account's are not", async (t) => {
      const { storage, account, other } = await setUp(t);
      const first = await storage.orders.create({ accountId: account.id, complete: false, status: 'pending', createdAt: at(1) });
      const second = await storage.orders.create({ accountId: account.id, complete: false, status: 'pending', createdAt: at(2) });
      await storage.orders.changeStatus({ id: first.id, accountId: account.id, from: 'pending', to: 'shipped', at: at(3) });
      const theirs = await storage.orders.create({ accountId: other.id, complete: false, status: 'pending', createdAt: at(4) });
      const events = await storage.events.listPage({ accountId: account.id, filter: { subject: `order:${first.id}` }, afterPosition: 0n, limit: 10 });
      assert.deepEqual(events.map((event) => [event.type, event.subject]), [['order.created', `order:${first.id}`], ['order.shipped', `order:${first.id}`]]);
      const after = events[0]?.position ?? 0n;
      assert.deepEqual((await storage.events.listPage({ accountId: account.id, filter: { subject: `order:${first.id}` }, afterPosition: after, limit: 10 })).map((event) => event.type), ['order.shipped']);
      assert.deepEqual((await storage.events.listPage({ accountId: account.id, filter: { subject: `order:${second.id}`, types: ['order.shipped'] }, afterPosition: 0n, limit: 10 })), []);
      assert.deepEqual(await storage.events.listPage({ accountId: account.id, filter: { subject: `order:${theirs.id}` }, afterPosition: 0n, limit: 10 }), []);
    });

    test("when events were fanned out to endpoints, then listEventDeliveries gives each event's deliveries with their endpoint, for the account's events only", async (t) => {
      const { storage, account, other } = await setUp(t);
      const all = await endpoint(storage, account.id, 1);
      const shippedOnly = await endpoint(storage, account.id, 2, ['order.shipped']);
      await endpoint(storage, other.id, 3);
      const order = await storage.orders.create({ accountId: account.id, complete: false, status: 'pending', createdAt: at(1) });
      await storage.orders.changeStatus({ id: order.id, accountId: account.id, from: 'pending', to: 'shipped', at: at(2) });
      const [created, shipped] = await storage.events.listPage({ accountId: account.id, filter: { subject: `order:${order.id}` }, afterPosition: 0n, limit: 10 });
      assert.ok(created !== undefined && shipped !== undefined);

      // The first attempt of the created event's delivery fails with a 500 and is to be retried.
      const claimed = await storage.webhooks.claimDue({ claimant: 'engine', now: at(3), claimedUntil: at(60), limit: 10 });
      const firstAttempt = claimed.find((delivery) => delivery.eventId === created.id);
      assert.ok(firstAttempt !== undefined);
      await storage.webhooks.markAttemptFailed({ id: firstAttempt.id, claimant: 'engine', at: at(4), attempt: 1, statusCode: 500, durationMs: 12, error: 'The endpoint answered HTTP 500.', retryAt: at(100) });

      const deliveries = await storage.webhooks.listEventDeliveries(account.id, [created.id, shipped.id], 100);
      assert.deepEqual(
        deliveries.map((delivery) => [delivery.eventId, delivery.endpointId, delivery.endpointUrl]),
        [
          [created.id, all.id, all.url],
          [shipped.id, all.id, all.url],
          [shipped.id, shippedOnly.id, shippedOnly.url],
        ],
      );
      const failed = deliveries[0];
      assert.ok(failed !== undefined);
      assert.deepEqual(
        { status: failed.status, attempts: failed.attempts, statusCode: failed.statusCode, error: failed.error, lastAttemptAt: failed.lastAttemptAt, nextAttemptAt: failed.nextAttemptAt },
        { status: 'pending', attempts: 1, statusCode: 500, error: 'The endpoint answered HTTP 500.', lastAttemptAt: at(4), nextAttemptAt: at(100) },
      );
      assert.equal(deliveries[1]?.attempts, 0);
      assert.equal(deliveries[1]?.statusCode, null);
      assert.equal((await storage.webhooks.listEventDeliveries(account.id, [shipped.id], 1)).length, 1);
      assert.deepEqual(await storage.webhooks.listEventDeliveries(other.id, [created.id, shipped.id], 100), []);
      assert.deepEqual(await storage.webhooks.listEventDeliveries(account.id, [], 100), []);
    });

    test('when an order is created with who placed it, then its order_created audit entry is written with it; without, none', async (t) => {
      const { storage, account } = await setUp(t);
      const placed = await storage.orders.create({
        accountId: account.id,
        petId: 7n,
        quantity: 2,
        complete: false,
        status: 'pending',
        createdAt: at(1),
        audit: { actor: { kind: 'user', id: 12 }, address: '2001:db8::1' },
      });
      await storage.orders.create({ accountId: account.id, complete: false, status: 'pending', createdAt: at(2) });
      const entries = await storage.audit.listPage({ accountId: account.id, limit: 10 });
      assert.deepEqual(
        entries.map(({ at: when, actor, address, action, target, details }) => ({ at: when, actor, address, action, target, details })),
        [{ at: at(1), actor: { kind: 'user', id: 12 }, address: '2001:db8::1', action: 'order_created', target: { kind: 'order', id: placed.id.toString() }, details: {} }],
      );
    });
  });
}
