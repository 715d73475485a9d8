/**
 * The events part of the storage contract: the transactional outbox. Every
 * write path that reports an event (orders.create, changeStatus,
 * changeStatusMany, importOrders, messages.markSent, markAttemptFailed)
 * writes it in the change's own transaction, so a change never commits
 * without its event and a rolled-back change leaves none; and the feed's
 * reads (listPage by position, findForAccount, pruneBefore). The same cases
 * on every adapter.
 */
import assert from 'node:assert/strict';
import { describe, test, type TestContext } from 'node:test';
import { orderEvent } from '../../../src/events/event-records.js';
import type { StoredEvent } from '../../../src/events/events-repository.js';
import type { NewOrder } from '../../../src/orders/orders-repository.js';
import { failInserts, isoPlus, type ContractCoverage } from '../../support/storage-contract.js';
import { runSql } from '../../support/raw-sql.js';
import { storageBackends } from '../../support/storage.js';

export const CONTRACT_COVERS = {
  events: ['listPage', 'findForAccount', 'pruneBefore'],
} as const satisfies ContractCoverage;

const T0 = '2026-11-22T10:00:00.000Z';
const at = (ms: number) => isoPlus(T0, ms);
const BIG = 9_007_199_254_740_993n;

function pending(accountId: number, fields: Partial<NewOrder> = {}): NewOrder {
  return { accountId, complete: false, status: 'pending', createdAt: T0, ...fields };
}

const ALL = { filter: {}, afterPosition: 0n, limit: 500 };

for (const backend of storageBackends({ postgresDirect: true })) {
  describe(`events storage contract: ${backend.name}`, () => {
    async function setUp(t: TestContext) {
      const { storage, config } = await backend.freshDatabase(t);
      const account = await storage.accounts.create({ name: 'Main Street Pets', createdAt: T0 });
      const other = await storage.accounts.create({ name: 'Harbour Pets', createdAt: T0 });
      const events = async (accountId: number): Promise<StoredEvent[]> => storage.events.listPage({ accountId, ...ALL });
      return { storage, config, accountId: account.id, otherId: other.id, events };
    }

    test('when an order is created, then one order.created event is committed with it: the Event record as sent, int64 ids exact', async (t) => {
      const { storage, accountId, otherId, events } = await setUp(t);
      await storage.orders.create(pending(accountId, { id: BIG, petId: BIG + 1n, quantity: 2, shipDate: '2026-12-01T10:00:00.000Z', createdAt: at(5) }));
      const [event, ...rest] = await events(accountId);
      assert.equal(rest.length, 0);
      assert.ok(event);
      assert.match(event.id, /^evt_[0-9a-f]{32}$/);
      assert.deepEqual({ ...event, id: 'x' }, {
        id: 'x',
        accountId,
        position: 1n,
        type: 'order.created',
        subject: `order:${BIG}`,
        createdAt: at(5),
        payload:
          `{"id":"${event.id}","type":"order.created","createdAt":"${at(5)}","data":{"order":` +
          `{"id":9007199254740993,"status":"pending","complete":false,"petId":9007199254740994,"quantity":2,"shipDate":"2026-12-01T10:00:00.000Z"}}}`,
      });
      assert.deepEqual(await storage.events.findForAccount(accountId, event.id), event);
      assert.equal(await storage.events.findForAccount(otherId, event.id), undefined, "another account's event is not found");
      assert.equal(await storage.events.findForAccount(accountId, 'evt_missing'), undefined);
      assert.deepEqual(await events(otherId), []);
    });

    test('when status changes are grouped, then each change that happened has its event (the order right after it), in order, and refusals have none', async (t) => {
      const { storage, accountId, otherId, events } = await setUp(t);
      const a = await storage.orders.create(pending(accountId, { id: 1n }));
      const b = await storage.orders.create(pending(accountId, { id: 2n, petId: 7n }));
      const theirs = await storage.orders.create(pending(otherId, { id: 3n }));
      const results = await storage.orders.changeStatusMany([
        { id: b.id, accountId, from: 'pending', to: 'cancelled', at: at(10) },
        { id: theirs.id, accountId, from: 'pending', to: 'cancelled', at: at(10) },
        { id: b.id, accountId, from: 'pending', to: 'cancelled', at: at(10) },
        { id: a.id, accountId, from: 'pending', to: 'shipped', at: at(11) },
        { id: 404n, accountId, from: 'pending', to: 'cancelled', at: at(10) },
      ]);
      assert.deepEqual(results, [{ changed: true }, { changed: false }, { changed: false, current: 'cancelled' }, { changed: true }, { changed: false }]);
      const mine = await events(accountId);
      assert.deepEqual(mine.map((e) => [e.position, e.type, e.subject]), [
        [1n, 'order.created', 'order:1'],
        [2n, 'order.created', 'order:2'],
        [3n, 'order.cancelled', 'order:2'],
        [4n, 'order.shipped', 'order:1'],
      ]);
      const cancelled = JSON.parse(mine[2]?.payload ?? '') as unknown;
      assert.deepEqual(cancelled, { id: mine[2]?.id, type: 'order.cancelled', createdAt: at(10), data: { order: { id: 2, status: 'cancelled', complete: false, petId: 7 } } });
      assert.deepEqual((await events(otherId)).map((e) => e.type), ['order.created'], 'the refused change of another account wrote nothing');
    });

    test('when a lone status change happens (changeStatus), then its event commits with it', async (t) => {
      const { storage, accountId, events } = await setUp(t);
      const order = await storage.orders.create(pending(accountId, { id: 5n }));
      assert.deepEqual(await storage.orders.changeStatus({ id: order.id, from: 'pending', to: 'shipped', at: at(1) }), { changed: true });
      assert.deepEqual(await storage.orders.changeStatus({ id: order.id, from: 'pending', to: 'cancelled', at: at(2) }), { changed: false, current: 'shipped' });
      assert.deepEqual((await events(accountId)).map((e) => [e.type, e.createdAt]), [['order.created', T0], ['order.shipped', at(1)]]);
    });

    test('when the event cannot be written, then the change rolls back with it (create, cancel, import, message settlement)', async (t) => {
      const { storage, config, accountId, events } = await setUp(t);
      const order = await storage.orders.create(pending(accountId, { id: 1n }));
      await storage.messages.create({ id: 'm-1', accountId, message: 'hi', createdAt: T0 }, T0);
      const [claimed] = await storage.messages.claimDue({ claimant: 'c', now: T0, claimedUntil: at(60_000), limit: 1 });
      assert.ok(claimed);
      const forced = failInserts(config, 'events');
      await forced.arm();
      await assert.rejects(storage.orders.changeStatusMany([{ id: order.id, accountId, from: 'pending', to: 'cancelled', at: at(1) }]), /forced failure/);
      await assert.rejects(storage.orders.changeStatus({ id: order.id, from: 'pending', to: 'shipped', at: at(1) }), /forced failure/);
      await assert.rejects(storage.orders.create(pending(accountId, { id: 2n })), /forced failure/);
      await assert.rejects(storage.orders.importOrders((async function* () { yield { orders: [pending(accountId, { id: 3n })], lines: [1] }; })()), /forced failure/);
      await assert.rejects(storage.messages.markSent({ id: 'm-1', claimant: 'c', at: at(2) }), /forced failure/);
      await forced.allow();
      assert.deepEqual((await storage.orders.listAll(accountId)).map((o) => [o.id, o.status]), [[1n, 'pending']], 'nothing changed without its event');
      assert.equal((await storage.messages.findForAccount(accountId, 'm-1'))?.status, 'queued');
      assert.deepEqual((await events(accountId)).map((e) => e.type), ['order.created']);
      // And once events can be written again, the same changes commit with theirs.
      assert.deepEqual(await storage.orders.changeStatusMany([{ id: order.id, accountId, from: 'pending', to: 'cancelled', at: at(3) }]), [{ changed: true }]);
      assert.equal(await storage.messages.markSent({ id: 'm-1', claimant: 'c', at: at(4) }), true);
      assert.deepEqual((await events(accountId)).map((e) => [e.position, e.type]), [[1n, 'order.created'], [2n, 'order.cancelled'], [3n, 'message.sent']]);
    });

    test('when orders are imported, then each has one order.created naming its stored id, and a refused import leaves no event', async (t) => {
      const { storage, accountId, events } = await setUp(t);
      const batch = (orders: NewOrder[]) => ({ orders, lines: orders.map((_, i) => i + 1) });
      const many = Array.from({ length: 120 }, (_, i) => pending(accountId, i % 3 === 0 ? { petId: BigInt(i) } : { id: BigInt(1000 + i), quantity: i + 1 }));
      assert.deepEqual(await storage.orders.importOrders((async function* () { yield batch(many.slice(0, 70)); yield batch(many.slice(70)); })()), { imported: 120 });
      const stored = await storage.orders.listAll(accountId);
      const feed = await events(accountId);
      assert.equal(feed.length, 120);
      assert.deepEqual(feed.map((e) => e.position), Array.from({ length: 120 }, (_, i) => BigInt(i + 1)));
      const reported = feed.map((e) => {
        const record = JSON.parse(e.payload) as { type: string; data: { order: { id: number; petId?: number; quantity?: number } } };
        assert.equal(record.type, 'order.created');
        return record.data.order;
      });
      assert.deepEqual(
        [...reported].sort((x, y) => x.id - y.id),
        stored.map((o) => ({ id: Number(o.id), status: 'pending', complete: false, ...(o.petId === undefined ? {} : { petId: Number(o.petId) }), ...(o.quantity === undefined ? {} : { quantity: o.quantity }) })),
      );
      assert.deepEqual(feed.map((e) => e.subject), reported.map((o) => `order:${o.id}`));
      // Refused on its second batch: the first batch's orders and events roll back too.
      await assert.rejects(storage.orders.importOrders((async function* () { yield batch([pending(accountId, { id: 5000n })]); yield batch([pending(accountId, { id: 1000n + 1n })]); })()));
      assert.equal((await events(accountId)).length, 120);
      assert.equal(await storage.orders.findById(5000n), undefined);
    });

    test('when orders are imported in several runs into an account with endpoints, then positions follow on from its events, and each order.created gets one delivery per subscribed endpoint as they are made', async (t) => {
      const { storage, config, accountId, otherId } = await setUp(t);
      const endpoint = async (owner: number, n: number, eventTypes: string[] | null) => {
        const id = `we_${String(n).padStart(32, '0')}`;
        const made = await storage.webhooks.createEndpoint(
          { id, accountId: owner, url: `https://hooks.example.com/${n}`, eventTypes, description: null, rateLimit: null, sealedSecret: 'sealed', createdAt: T0 },
          { maxPerAccount: 10 },
        );
        assert.ok(typeof made === 'object');
        return id;
      };
      const subscribed = [await endpoint(accountId, 1, null), await endpoint(accountId, 2, ['order.created'])];
      await endpoint(accountId, 3, ['order.shipped']);
      await endpoint(otherId, 4, null);
      await storage.orders.create(pending(accountId, { id: 1n }));
      // 10,001 orders in batches of 1,000: PostgreSQL writes them in two runs, the second placed while the first is written.
      const orders = Array.from({ length: 10_001 }, () => pending(accountId));
      async function* batches() {
        for (let i = 0; i < orders.length; i += 1000) yield { orders: orders.slice(i, i + 1000), lines: orders.slice(i, i + 1000).map((_, j) => i + j + 1) };
      }
      assert.deepEqual(await storage.orders.importOrders(batches()), { imported: 10_001 });
      const feed = await storage.events.listPage({ accountId, filter: {}, afterPosition: 0n, limit: 20_000 });
      assert.deepEqual(feed.map((e) => [e.position, e.subject]), Array.from({ length: 10_002 }, (_, i) => [BigInt(i + 1), `order:${i + 1}`]));
      // The engine makes them from each endpoint's cursor, a backlog as it is delivered: settled here as it would send them.
      while ((await storage.webhooks.materializeDeliveries()) > 0) await runSql(config, "UPDATE webhook_deliveries SET status = 'succeeded' WHERE status = 'pending'");
      const deliveries = await storage.webhooks.listEventDeliveries(accountId, feed.map((e) => e.id), 100_000);
      const endpointsOf = new Map<string, string[]>();
      for (const { eventId, endpointId } of deliveries) endpointsOf.set(eventId, [...(endpointsOf.get(eventId) ?? []), endpointId]);
      assert.equal(deliveries.length, 2 * feed.length);
      assert.ok(feed.every((e) => JSON.stringify(endpointsOf.get(e.id)?.sort()) === JSON.stringify(subscribed)), 'each event to both subscribed endpoints, once');
    });

    test('when orders of every shape are imported, then each event is byte for byte the record orderEvent writes for the stored order', async (t) => {
      const { storage, accountId, events } = await setUp(t);
      const shapes: NewOrder[] = [
        pending(accountId),
        pending(accountId, { id: 9_223_372_036_854_775_000n, petId: BIG, quantity: 2_147_483_647, shipDate: '2026-12-01T10:00:00.000Z', complete: true, createdAt: at(7) }),
        pending(accountId, { petId: 0n, quantity: 0 }),
        pending(accountId, { shipDate: '1970-01-01T00:00:00.000Z', createdAt: '2026-11-22T10:00:00.123Z' }),
      ];
      await storage.orders.importOrders((async function* () { yield { orders: shapes, lines: [1, 2, 3, 4] }; })());
      const stored = new Map((await storage.orders.listAll(accountId)).map((o) => [`order:${o.id}`, o]));
      const feed = await events(accountId);
      assert.equal(feed.length, shapes.length);
      for (const [i, event] of feed.entries()) {
        const order = stored.get(event.subject);
        const shape = shapes[i];
        assert.ok(order && shape, event.subject);
        const expected = orderEvent('order.created', order, shape.createdAt);
        assert.equal(event.payload, expected.payload.replace(expected.id, event.id), event.subject);
        assert.equal(event.createdAt, shape.createdAt);
      }
    });

    test('when a message delivery ends, then message.sent or message.failed is written with the message; a retry or a lost claim writes none', async (t) => {
      const { storage, accountId, events } = await setUp(t);
      for (const id of ['m-1', 'm-2']) await storage.messages.create({ id, accountId, message: `text "${id}"`, createdAt: T0 }, T0);
      const claimed = await storage.messages.claimDue({ claimant: 'c', now: T0, claimedUntil: at(60_000), limit: 10 });
      assert.equal(claimed.length, 2);
      assert.equal(await storage.messages.markSent({ id: 'm-1', claimant: 'other', at: at(1) }), false);
      assert.equal(await storage.messages.markAttemptFailed({ id: 'm-2', claimant: 'c', at: at(1), error: 'boom', retryAt: at(5) }), true);
      assert.deepEqual(await events(accountId), [], 'a lost claim and a retry end nothing');
      assert.equal(await storage.messages.markSent({ id: 'm-1', claimant: 'c', at: at(2) }), true);
      await storage.messages.claimDue({ claimant: 'd', now: at(5), claimedUntil: at(60_000), limit: 10 });
      assert.equal(await storage.messages.markAttemptFailed({ id: 'm-2', claimant: 'd', at: at(6), error: 'boom' }), true);
      const feed = await events(accountId);
      assert.deepEqual(feed.map((e) => [e.type, e.subject, e.createdAt]), [['message.sent', 'message:m-1', at(2)], ['message.failed', 'message:m-2', at(6)]]);
      assert.deepEqual(JSON.parse(feed[0]?.payload ?? ''), {
        id: feed[0]?.id,
        type: 'message.sent',
        createdAt: at(2),
        data: { message: { id: 'm-1', message: 'text "m-1"', status: 'sent', createdAt: T0 } },
      });
      assert.equal((JSON.parse(feed[1]?.payload ?? '') as { data: { message: { status: string } } }).data.message.status, 'failed');
    });

    test('when the feed is read, then events come by position after the cursor, filtered by type and the half-open created range, at most limit', async (t) => {
      const { storage, accountId, otherId } = await setUp(t);
      for (let i = 1; i <= 6; i++) await storage.orders.create(pending(accountId, { id: BigInt(i), createdAt: at(i * 1000) }));
      await storage.orders.create(pending(otherId, { id: 99n, createdAt: at(3000) }));
      await storage.orders.changeStatusMany([{ id: 2n, accountId, from: 'pending', to: 'cancelled', at: at(7000) }]);
      const page = (query: Partial<Parameters<typeof storage.events.listPage>[0]>) =>
        storage.events.listPage({ accountId, ...ALL, ...query }).then((rows) => rows.map((e) => [e.position, e.type, e.createdAt]));
      assert.deepEqual(await page({ limit: 2 }), [[1n, 'order.created', at(1000)], [2n, 'order.created', at(2000)]]);
      assert.deepEqual(await page({ afterPosition: 5n }), [[6n, 'order.created', at(6000)], [7n, 'order.cancelled', at(7000)]]);
      assert.deepEqual(await page({ afterPosition: 7n }), []);
      assert.deepEqual(await page({ filter: { types: ['order.cancelled', 'message.sent'] } }), [[7n, 'order.cancelled', at(7000)]]);
      assert.deepEqual((await page({ filter: { createdFrom: at(3000), createdTo: at(5000) } })).map(([p]) => p), [3n, 4n]);
      assert.deepEqual(await page({ filter: { types: ['order.created'], createdFrom: at(6000) } }), [[6n, 'order.created', at(6000)]]);
      assert.deepEqual(await storage.events.listPage({ ...ALL, accountId: otherId }).then((rows) => rows.map((e) => e.position)), [1n]);
    });

    test('when events are pruned, then those created before the instant go, at most limit per call, and positions are never given out again', async (t) => {
      const { storage, accountId, otherId, events } = await setUp(t);
      for (let i = 1; i <= 5; i++) await storage.orders.create(pending(accountId, { id: BigInt(i), createdAt: at(i * 1000) }));
      await storage.orders.create(pending(otherId, { id: 9n, createdAt: at(1500) }));
      assert.equal(await storage.events.pruneBefore(at(3000), 2), 2);
      assert.equal(await storage.events.pruneBefore(at(3000), 2), 1);
      assert.equal(await storage.events.pruneBefore(at(3000), 2), 0);
      assert.deepEqual((await events(accountId)).map((e) => e.position), [3n, 4n, 5n]);
      assert.deepEqual(await events(otherId), []);
      await storage.orders.create(pending(otherId, { id: 10n, createdAt: at(9000) }));
      assert.deepEqual((await events(otherId)).map((e) => e.position), [2n]);
    });
  });
}
