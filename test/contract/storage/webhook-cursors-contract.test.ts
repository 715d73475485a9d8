/**
 * The webhook cursors part of the storage contract, the same cases on every
 * adapter: a change's transaction writes its events and no delivery; the
 * engine's claim (or materializeDeliveries) makes the deliveries of the
 * events after each enabled endpoint's cursor, in event order, for the
 * types it subscribes to, a bounded number at a time, never twice however
 * many engines make them at once.
 */
import assert from 'node:assert/strict';
import { describe, test, type TestContext } from 'node:test';
import type { DatabaseConfig } from '../../../src/config/config.js';
import type { EventType } from '../../../src/events/event-types.js';
import { openStorage } from '../../../src/storage/open-storage.js';
import { MATERIALIZE_BELOW_PENDING, MATERIALIZED_PER_ENDPOINT } from '../../../src/storage/webhook-rows.js';
import type { ContractCoverage } from '../../support/storage-contract.js';
import { readSql, runSql } from '../../support/raw-sql.js';
import { storageBackends } from '../../support/storage.js';
import { startHookReceiver, webhooksHarness, type WebhooksHarness } from '../../webhooks/support.js';

export const CONTRACT_COVERS = { webhooks: ['materializeDeliveries'] } as const satisfies ContractCoverage;

const FAR = '9999-12-31T00:00:00.000Z';

/** Creates an endpoint of the tenant over HTTP, as a client would; returns its id. */
async function endpoint(t: TestContext, h: WebhooksHarness, auth: { authorization: string }, eventTypes?: string[]): Promise<string> {
  const receiver = await startHookReceiver(t);
  const created = await h.app.inject({
    method: 'POST',
    url: '/v2/webhook-endpoints',
    headers: { ...auth, 'content-type': 'application/json' },
    payload: eventTypes === undefined ? { url: receiver.url } : { url: receiver.url, eventTypes },
  });
  assert.equal(created.statusCode, 201, created.body);
  return created.json<{ id: string }>().id;
}

/** The event ids of the endpoint's deliveries, oldest (lowest seq) first. */
async function deliveredEvents(h: WebhooksHarness, accountId: number, endpointId: string): Promise<string[]> {
  return (await h.storage.webhooks.listDeliveries(accountId, endpointId, undefined, 100)).reverse().map((d) => d.eventId);
}

/** The account's event ids in feed (position) order. */
async function feed(h: WebhooksHarness, accountId: number, types?: EventType[]): Promise<string[]> {
  const events = await h.storage.events.listPage({ accountId, filter: types === undefined ? {} : { types }, afterPosition: 0n, limit: 10_000 });
  return events.map((event) => event.id);
}

/** Writes `count` order.created events of the account straight into the outbox, as `count` changes would (positions bumped alike). */
async function bulkEvents(database: DatabaseConfig, accountId: number, count: number): Promise<void> {
  const at = new Date().toISOString();
  const tag = Math.random().toString(16).slice(2, 10);
  await runSql(
    database,
    database.kind === 'sqlite'
      ? [
          `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ${count})
           INSERT INTO events (account_id, position, id, type, subject, created_at, payload)
           SELECT ${accountId}, (SELECT events_position FROM accounts WHERE id = ${accountId}) + i, 'evt_${tag}' || i, 'order.created', 'order:' || (900000 + i), '${at}', '{}' FROM n`,
          `UPDATE accounts SET events_position = events_position + ${count} WHERE id = ${accountId}`,
        ]
      : [
          `WITH base AS (UPDATE accounts SET events_position = events_position + ${count} WHERE id = ${accountId} RETURNING events_position - ${count} AS p)
           INSERT INTO events (account_id, position, id, type, subject, created_at, payload)
           SELECT ${accountId}, base.p + i, 'evt_${tag}' || i, 'order.created', 'order:' || (900000 + i), '${at}', '{}' FROM base, generate_series(1, ${count}) i`,
        ],
  );
}

/** Every pending delivery settled as sent, as the engine would once they were delivered. */
async function settleAll(database: DatabaseConfig): Promise<void> {
  await runSql(database, `UPDATE webhook_deliveries SET status = 'succeeded' WHERE status = 'pending'`);
}

async function deliveryCount(database: DatabaseConfig, endpointId: string): Promise<{ rows: number; events: number }> {
  const [row] = await readSql(database, `SELECT count(*) AS rows, count(DISTINCT event_id) AS events FROM webhook_deliveries WHERE endpoint_id = '${endpointId}'`);
  return { rows: Number(row?.rows), events: Number(row?.events) };
}

for (const backend of storageBackends({ postgresDirect: true })) {
  describe(`webhook cursors storage contract: ${backend.name}`, () => {
    test('when orders change, then no delivery exists until the engine makes them: one per subscribed event, in event order, and never twice', async (t) => {
      const h = await webhooksHarness(t, backend);
      const { accountId, auth } = await h.tenant();
      const createdOnly = await endpoint(t, h, auth, ['order.created']);
      const everyType = await endpoint(t, h, auth);
      const one = await h.services.orderOperations.createOrder({ accountId });
      await h.services.orders.cancelOrder(accountId, one.id);
      await h.services.orderOperations.createOrder({ accountId });
      assert.deepEqual(await deliveredEvents(h, accountId, everyType), []);
      assert.equal(await h.storage.webhooks.materializeDeliveries(), 2 + 3);
      assert.deepEqual(await deliveredEvents(h, accountId, createdOnly), await feed(h, accountId, ['order.created']));
      assert.deepEqual(await deliveredEvents(h, accountId, everyType), await feed(h, accountId));
      assert.equal((await feed(h, accountId)).length, 3);
      assert.equal(await h.storage.webhooks.materializeDeliveries(), 0);
      // The claim makes them too: a later change is claimable without any other call.
      await h.services.orderOperations.createOrder({ accountId });
      const claimed = await h.storage.webhooks.claimDue({ claimant: 'a', now: FAR, claimedUntil: FAR, limit: 100 });
      const latest = (await feed(h, accountId)).at(-1);
      assert.deepEqual(claimed.filter((d) => d.eventId === latest).map((d) => d.endpointId).sort(), [createdOnly, everyType].sort());
    });

    test('when more events than a claim makes wait behind a cursor, then an endpoint has at most MATERIALIZED_PER_ENDPOINT pending, refilled once fewer than MATERIALIZE_BELOW_PENDING are, in order, until all are made', async (t) => {
      const h = await webhooksHarness(t, backend);
      const { accountId, auth } = await h.tenant();
      const endpointId = await endpoint(t, h, auth, ['order.created']);
      const count = 2 * MATERIALIZED_PER_ENDPOINT + 30;
      await bulkEvents(h.database, accountId, count);
      await h.storage.webhooks.claimDue({ claimant: 'a', now: FAR, claimedUntil: FAR, limit: 1 });
      assert.deepEqual(await deliveryCount(h.database, endpointId), { rows: MATERIALIZED_PER_ENDPOINT, events: MATERIALIZED_PER_ENDPOINT });
      // A backlog is made as it is delivered: nothing more while MATERIALIZE_BELOW_PENDING or more are pending, then a refill.
      const settle = (n: number) => runSql(h.database, `UPDATE webhook_deliveries SET status = 'succeeded' WHERE seq IN (SELECT seq FROM webhook_deliveries WHERE status = 'pending' ORDER BY seq LIMIT ${n})`);
      await settle(MATERIALIZED_PER_ENDPOINT - MATERIALIZE_BELOW_PENDING);
      assert.equal(await h.storage.webhooks.materializeDeliveries(), 0);
      await settle(10);
      // Back up to MATERIALIZED_PER_ENDPOINT pending.
      const refill = MATERIALIZED_PER_ENDPOINT - (MATERIALIZE_BELOW_PENDING - 10);
      assert.equal(await h.storage.webhooks.materializeDeliveries(), refill);
      await settleAll(h.database);
      assert.equal(await h.storage.webhooks.materializeDeliveries(), count - MATERIALIZED_PER_ENDPOINT - refill);
      assert.equal(await h.storage.webhooks.materializeDeliveries(), 0);
      // seq follows positions: the delivery log, by seq, is the feed.
      const bySeq = await readSql(h.database, `SELECT event_id FROM webhook_deliveries WHERE endpoint_id = '${endpointId}' ORDER BY seq`);
      assert.deepEqual(
        bySeq.map((row) => row.event_id),
        await feed(h, accountId),
      );
    });

    test('when ten connections make deliveries at once, then each event has exactly one delivery per endpoint', async (t) => {
      const h = await webhooksHarness(t, backend);
      const { accountId, auth } = await h.tenant();
      const endpoints = [await endpoint(t, h, auth), await endpoint(t, h, auth, ['order.created']), await endpoint(t, h, auth, ['order.cancelled'])];
      const count = 3 * MATERIALIZED_PER_ENDPOINT + 7;
      await bulkEvents(h.database, accountId, count);
      const connections = Array.from({ length: 10 }, () => openStorage(h.database));
      t.after(() => Promise.all(connections.map((c) => c.close())));
      await Promise.all(
        connections.map(async (connection, index) => {
          // Half claim (which makes them first), half only make them.
          for (let round = 0; round < 6; round++) {
            if (index % 2 === 0) await connection.webhooks.claimDue({ claimant: `c${index}`, now: FAR, claimedUntil: FAR, limit: 5 });
            else await connection.webhooks.materializeDeliveries();
          }
        }),
      );
      for (;;) {
        await settleAll(h.database);
        if ((await h.storage.webhooks.materializeDeliveries()) === 0) break;
      }
      assert.deepEqual(await deliveryCount(h.database, endpoints[0] ?? ''), { rows: count, events: count });
      assert.deepEqual(await deliveryCount(h.database, endpoints[1] ?? ''), { rows: count, events: count });
      assert.deepEqual(await deliveryCount(h.database, endpoints[2] ?? ''), { rows: 0, events: 0 });
    });

    test('when an endpoint is created after some events, or disabled and enabled again, then it receives only the events written while it was enabled', async (t) => {
      const h = await webhooksHarness(t, backend);
      const { accountId, auth } = await h.tenant();
      await h.services.orderOperations.createOrder({ accountId });
      const endpointId = await endpoint(t, h, auth);
      const kept = await h.services.orderOperations.createOrder({ accountId });
      await h.storage.webhooks.materializeDeliveries();
      const [, afterCreate] = await feed(h, accountId);
      assert.deepEqual(await deliveredEvents(h, accountId, endpointId), [afterCreate]);
      await h.storage.webhooks.updateEndpoint(accountId, endpointId, { status: 'disabled' });
      await h.services.orders.cancelOrder(accountId, kept.id);
      assert.equal(await h.storage.webhooks.materializeDeliveries(), 0, 'a disabled endpoint has none made');
      // Disabled again while disabled (a PATCH of another field) moves nothing; enabling skips what happened meanwhile.
      await h.storage.webhooks.updateEndpoint(accountId, endpointId, { description: 'paused' });
      await h.storage.webhooks.updateEndpoint(accountId, endpointId, { status: 'enabled' });
      assert.equal(await h.storage.webhooks.materializeDeliveries(), 0);
      await h.services.orderOperations.createOrder({ accountId });
      // Enabling an enabled endpoint does not move its cursor past what is not made yet.
      await h.storage.webhooks.updateEndpoint(accountId, endpointId, { status: 'enabled' });
      assert.equal(await h.storage.webhooks.materializeDeliveries(), 1);
      const events = await feed(h, accountId);
      assert.deepEqual(await deliveredEvents(h, accountId, endpointId), [afterCreate, events.at(-1)]);
    });

    test('when an endpoint is disabled with events not yet made behind its cursor (by a PATCH or by a 410), then enabling it again makes every one of them, once and in order, and none written while it was disabled', async (t) => {
      const h = await webhooksHarness(t, backend);
      const { accountId, auth } = await h.tenant();
      const byPatch = await endpoint(t, h, auth);
      const byGone = await endpoint(t, h, auth, ['order.created']);
      // A slow receiver's backlog: more events than one claim makes.
      const backlog = 2 * MATERIALIZED_PER_ENDPOINT + 30;
      await bulkEvents(h.database, accountId, backlog);
      const claimed = await h.storage.webhooks.claimDue({ claimant: 'a', now: FAR, claimedUntil: FAR, limit: 1000 });
      assert.equal((await deliveryCount(h.database, byPatch)).rows, MATERIALIZED_PER_ENDPOINT);
      assert.equal((await deliveryCount(h.database, byGone)).rows, MATERIALIZED_PER_ENDPOINT);
      const before = await feed(h, accountId);
      assert.equal(before.length, backlog);

      await h.storage.webhooks.updateEndpoint(accountId, byPatch, { status: 'disabled' });
      // The other is disabled by its receiver: a 410 on an attempt.
      const gone = claimed.find((d) => d.endpointId === byGone);
      assert.ok(gone !== undefined);
      assert.equal(await h.storage.webhooks.markAttemptFailed({ id: gone.id, claimant: 'a', at: new Date().toISOString(), error: 'HTTP 410', statusCode: 410, gone: true }), true);
      assert.equal((await h.storage.webhooks.findEndpoint(accountId, byGone))?.status, 'disabled');

      // Written while both are disabled: never sent to them.
      await h.services.orderOperations.createOrder({ accountId });
      await h.services.orderOperations.createOrder({ accountId });
      await settleAll(h.database);
      assert.equal(await h.storage.webhooks.materializeDeliveries(), 0, 'a disabled endpoint has none made');

      await h.storage.webhooks.updateEndpoint(accountId, byPatch, { status: 'enabled' });
      await h.storage.webhooks.updateEndpoint(accountId, byGone, { status: 'enabled' });
      // Enabling twice makes nothing twice.
      await h.storage.webhooks.updateEndpoint(accountId, byPatch, { status: 'enabled' });
      const after = await h.services.orderOperations.createOrder({ accountId });
      for (;;) {
        await settleAll(h.database);
        if ((await h.storage.webhooks.materializeDeliveries()) === 0) break;
      }
      const latest = (await feed(h, accountId)).at(-1);
      assert.ok(latest !== undefined && after.id > 0n);
      for (const endpointId of [byPatch, byGone]) {
        const bySeq = await readSql(h.database, `SELECT event_id FROM webhook_deliveries WHERE endpoint_id = '${endpointId}' ORDER BY seq`);
        assert.deepEqual(
          bySeq.map((row) => row.event_id),
          [...before, latest],
          endpointId,
        );
      }
    });

    test('when events wait behind an enabled endpoint cursor, then oldestDueAt is the oldest of them, and nothing once they are made and sent', async (t) => {
      const h = await webhooksHarness(t, backend);
      const { accountId, auth } = await h.tenant();
      const endpointId = await endpoint(t, h, auth);
      assert.equal(await h.storage.webhooks.oldestDueAt(), undefined);
      await h.services.orderOperations.createOrder({ accountId });
      await h.services.orderOperations.createOrder({ accountId });
      const [first] = await h.storage.events.listPage({ accountId, filter: {}, afterPosition: 0n, limit: 1 });
      assert.equal(await h.storage.webhooks.oldestDueAt(), first?.createdAt);
      await h.storage.webhooks.updateEndpoint(accountId, endpointId, { status: 'disabled' });
      assert.equal(await h.storage.webhooks.oldestDueAt(), undefined, 'a disabled endpoint waits for a person, not the engine');
      await h.storage.webhooks.updateEndpoint(accountId, endpointId, { status: 'enabled' });
      await h.services.orderOperations.createOrder({ accountId });
      const claimed = await h.storage.webhooks.claimDue({ claimant: 'a', now: FAR, claimedUntil: FAR, limit: 10 });
      // The two written before the disabling (made at the enabling) and the one after it.
      assert.equal(claimed.length, 3);
      for (const d of claimed) await h.storage.webhooks.markSent({ id: d.id, claimant: 'a', at: FAR });
      assert.equal(await h.storage.webhooks.oldestDueAt(), undefined);
    });
  });
}
