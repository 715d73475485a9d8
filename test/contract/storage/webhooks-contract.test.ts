/**
 * The webhooks part of the storage contract, the same cases on every
 * adapter: endpoints scoped to their account, and the deliveries queue the
 * engine relies on (claims that hold until `claimedUntil`, settlements only
 * by the claimant, one subject's deliveries to one endpoint in order).
 */
import assert from 'node:assert/strict';
import { describe, test, type TestContext } from 'node:test';
import { openStorage } from '../../../src/storage/open-storage.js';
import type { Storage } from '../../../src/storage/storage.js';
import { failInserts, type ContractCoverage } from '../../support/storage-contract.js';
import { storageBackends, type TestBackend } from '../../support/storage.js';
import { startHookReceiver, webhooksHarness } from '../../webhooks/support.js';

export const CONTRACT_COVERS = {
  webhooks: [
    'createEndpoint',
    'listEndpoints',
    'findEndpoint',
    'updateEndpoint',
    'deleteEndpoint',
    'rotateSecret',
    'listDeliveries',
    'redeliver',
    'claimDue',
    'markSent',
    'markAttemptFailed',
    'release',
    'oldestDueAt',
    'findDelivery',
    'findEndpointTarget',
    'recover',
  ],
} as const satisfies ContractCoverage;

const FAR = '9999-12-31T00:00:00.000Z';

/** A harness with one tenant and its endpoint subscribed to order.created (created over HTTP, as a client would). */
async function orderCreatedEndpoint(t: TestContext, backend: TestBackend) {
  const h = await webhooksHarness(t, backend);
  const { accountId, auth } = await h.tenant();
  const receiver = await startHookReceiver(t);
  const created = await h.app.inject({ method: 'POST', url: '/v2/webhook-endpoints', headers: { ...auth, 'content-type': 'application/json' }, payload: { url: receiver.url, eventTypes: ['order.created'] } });
  const { id: endpointId } = created.json<{ id: string }>();
  return { h, accountId, auth, endpointId };
}

/** The account's webhook_endpoint_disabled audit entries, oldest first, without their ids. */
async function disabledEntries(storage: Storage, accountId: number) {
  const entries = await storage.audit.listPage({ accountId, limit: 100 });
  return entries
    .filter((entry) => entry.action === 'webhook_endpoint_disabled')
    .reverse()
    .map(({ at, actor, target, details }) => ({ at, actor, target, details }));
}

for (const backend of storageBackends({ postgresDirect: true })) {
  describe(`webhooks storage contract: ${backend.name}`, () => {
    test('when ten connections claim concurrently, then each of 60 due deliveries is claimed exactly once', async (t) => {
      const h = await webhooksHarness(t, backend);
      const { accountId, auth } = await h.tenant();
      const receiver = await startHookReceiver(t);
      await h.app.inject({ method: 'POST', url: '/v2/webhook-endpoints', headers: { ...auth, 'content-type': 'application/json' }, payload: { url: receiver.url, eventTypes: ['order.created'] } });
      for (let i = 0; i < 60; i++) await h.services.orderOperations.createOrder({ accountId });
      const connections = Array.from({ length: 10 }, () => openStorage(h.database));
      t.after(() => Promise.all(connections.map((c) => c.close())));
      const now = new Date().toISOString();
      const claims = await Promise.all(
        connections.map(async (connection, index) => {
          const mine = [];
          for (;;) {
            const batch = await connection.webhooks.claimDue({ claimant: `c${index}`, now, claimedUntil: FAR, limit: 3 });
            if (batch.length === 0) return mine;
            mine.push(...batch.map((d) => d.id));
          }
        }),
      );
      const all = claims.flat();
      assert.equal(all.length, 60);
      assert.equal(new Set(all).size, 60);
    });

    test('when a claim lapses (its holder died), then another engine takes the delivery and the old holder cannot settle it', async (t) => {
      const h = await webhooksHarness(t, backend);
      const { accountId, auth } = await h.tenant();
      const receiver = await startHookReceiver(t);
      await h.app.inject({ method: 'POST', url: '/v2/webhook-endpoints', headers: { ...auth, 'content-type': 'application/json' }, payload: { url: receiver.url, eventTypes: ['order.created'] } });
      await h.services.orderOperations.createOrder({ accountId });
      const t0 = Date.now() + 1000;
      const at = (ms: number) => new Date(t0 + ms).toISOString();
      const [first] = await h.storage.webhooks.claimDue({ claimant: 'dead', now: at(0), claimedUntil: at(1000), limit: 10 });
      assert.ok(first);
      assert.deepEqual(await h.storage.webhooks.claimDue({ claimant: 'other', now: at(999), claimedUntil: at(2000), limit: 10 }), []);
      const [second] = await h.storage.webhooks.claimDue({ claimant: 'other', now: at(1000), claimedUntil: at(2000), limit: 10 });
      assert.equal(second?.id, first.id);
      assert.equal(second?.attempts, 2);
      // Due since it was queued the first time, since the lapsed claim's end the second.
      assert.ok(Date.parse(first.dueAt) <= Date.parse(at(0)), first.dueAt);
      assert.equal(second?.dueAt, at(1000));
      assert.equal(await h.storage.webhooks.markSent({ id: first.id, claimant: 'dead', at: at(1500) }), false);
      assert.equal(await h.storage.webhooks.markSent({ id: first.id, claimant: 'other', at: at(1500), statusCode: 200, durationMs: 3 }), true);
      assert.equal(await h.storage.webhooks.markAttemptFailed({ id: first.id, claimant: 'other', at: at(1600), error: 'late' }), false);
    });

    test('when one order has two events, then the later is not claimable until the earlier succeeded or was given up, and other orders flow meanwhile', async (t) => {
      const h = await webhooksHarness(t, backend);
      const { accountId, auth } = await h.tenant();
      const receiver = await startHookReceiver(t);
      await h.app.inject({ method: 'POST', url: '/v2/webhook-endpoints', headers: { ...auth, 'content-type': 'application/json' }, payload: { url: receiver.url } });
      const one = await h.services.orderOperations.createOrder({ accountId });
      await h.services.orders.cancelOrder(accountId, one.id);
      const other = await h.services.orderOperations.createOrder({ accountId });
      const now = () => new Date(Date.now() + 1000).toISOString();
      const claimed = await h.storage.webhooks.claimDue({ claimant: 'a', now: now(), claimedUntil: FAR, limit: 10 });
      // The creation of each order, not the cancellation of the first.
      assert.equal(claimed.length, 2);
      const payloads = claimed.map((d) => JSON.parse(d.payload) as { type: string; data: { order: { id: number } } });
      assert.deepEqual(payloads.map((p) => p.type), ['order.created', 'order.created']);
      assert.deepEqual(new Set(payloads.map((p) => String(p.data.order.id))), new Set([String(one.id), String(other.id)]));
      const [first] = claimed;
      assert.ok(first);
      // A failed attempt with a retry keeps it pending: the cancellation still waits.
      await h.storage.webhooks.markAttemptFailed({ id: first.id, claimant: 'a', at: now(), error: 'HTTP 500', statusCode: 500, retryAt: FAR });
      assert.deepEqual(await h.storage.webhooks.claimDue({ claimant: 'b', now: now(), claimedUntil: FAR, limit: 10 }), []);
      // Given up: the next one goes.
      const [again] = await h.storage.webhooks.claimDue({ claimant: 'b', now: FAR, claimedUntil: FAR, limit: 10 });
      assert.equal(again?.id, first.id);
      await h.storage.webhooks.markAttemptFailed({ id: first.id, claimant: 'b', at: now(), error: 'HTTP 500' });
      const [next] = await h.storage.webhooks.claimDue({ claimant: 'c', now: now(), claimedUntil: FAR, limit: 10 });
      assert.equal((JSON.parse(next?.payload ?? '{}') as { type?: string }).type, 'order.cancelled');
    });
    test('when deliveries wait, fail, are held back behind an earlier one or belong to a disabled endpoint, then oldestDueAt is the due time of the earliest a claim could take', async (t) => {
      const h = await webhooksHarness(t, backend);
      const { accountId, auth } = await h.tenant();
      const receiver = await startHookReceiver(t);
      assert.equal(await h.storage.webhooks.oldestDueAt(), undefined);
      const created = await h.app.inject({ method: 'POST', url: '/v2/webhook-endpoints', headers: { ...auth, 'content-type': 'application/json' }, payload: { url: receiver.url } });
      const endpointId = created.json<{ id: string }>().id;
      const order = await h.services.orderOperations.createOrder({ accountId });
      await h.services.orders.cancelOrder(accountId, order.id);
      // Not made yet (the engine's claim makes them): due since each event was written.
      const [createdEvent] = await h.storage.events.listPage({ accountId, filter: {}, afterPosition: 0n, limit: 1 });
      assert.equal(await h.storage.webhooks.oldestDueAt(), createdEvent?.createdAt);
      await h.storage.webhooks.materializeDeliveries();
      const [createdDelivery, cancelledDelivery] = (await h.storage.webhooks.listDeliveries(accountId, endpointId, undefined, 10)).reverse();
      assert.ok(createdDelivery && cancelledDelivery);
      assert.equal(await h.storage.webhooks.oldestDueAt(), createdDelivery.createdAt);
      const [claimed] = await h.storage.webhooks.claimDue({ claimant: 'a', now: FAR, claimedUntil: FAR, limit: 10 });
      assert.equal(claimed?.id, createdDelivery.id);
      // In flight (due again only at its lease's end), then waiting for its retry: the cancellation waits behind it (for the receiver, not the engine).
      assert.equal(await h.storage.webhooks.oldestDueAt(), FAR);
      await h.storage.webhooks.markAttemptFailed({ id: createdDelivery.id, claimant: 'a', at: FAR, error: 'HTTP 500', statusCode: 500, retryAt: FAR });
      assert.equal(await h.storage.webhooks.oldestDueAt(), FAR);
      const other = await h.services.orderOperations.createOrder({ accountId });
      await h.storage.webhooks.materializeDeliveries();
      const [otherDelivery] = await h.storage.webhooks.listDeliveries(accountId, endpointId, undefined, 1);
      assert.ok(otherDelivery && other);
      assert.equal(await h.storage.webhooks.oldestDueAt(), otherDelivery.createdAt);
      // A disabled endpoint's deliveries wait for it to be enabled, not for the engine.
      await h.storage.webhooks.updateEndpoint(accountId, endpointId, { status: 'disabled' });
      assert.equal(await h.storage.webhooks.oldestDueAt(), undefined);
      await h.storage.webhooks.updateEndpoint(accountId, endpointId, { status: 'enabled' });
      assert.equal(await h.storage.webhooks.oldestDueAt(), otherDelivery.createdAt);
      // Given up: the cancellation is free to go, due since it was queued.
      // (The other order's delivery is claimed too: in flight, it no longer counts.)
      const again = await h.storage.webhooks.claimDue({ claimant: 'b', now: FAR, claimedUntil: FAR, limit: 10 });
      assert.deepEqual(again.map((d) => d.id).sort(), [createdDelivery.id, otherDelivery.id].sort());
      await h.storage.webhooks.markAttemptFailed({ id: createdDelivery.id, claimant: 'b', at: FAR, error: 'HTTP 500' });
      assert.equal(await h.storage.webhooks.oldestDueAt(), cancelledDelivery.createdAt);
    });

    test('when attempts are settled one by one or with the next claim, then findDelivery has each with what was sent and what came back, and findEndpointTarget its sealed secrets', async (t) => {
      const h = await webhooksHarness(t, backend);
      const { accountId, auth } = await h.tenant();
      const receiver = await startHookReceiver(t);
      const created = await h.app.inject({ method: 'POST', url: '/v2/webhook-endpoints', headers: { ...auth, 'content-type': 'application/json' }, payload: { url: receiver.url, eventTypes: ['order.created'] } });
      const endpointId = created.json<{ id: string }>().id;
      const target = await h.storage.webhooks.findEndpointTarget(accountId, endpointId);
      assert.equal(target?.url, receiver.url);
      assert.match(target?.sealedSecret ?? '', /^v1\./);
      assert.equal(target?.previousSealedSecret, null);
      assert.equal(await h.storage.webhooks.findEndpointTarget(accountId + 1000, endpointId), undefined);
      await h.services.orderOperations.createOrder({ accountId });
      await h.services.orderOperations.createOrder({ accountId });
      const t0 = Date.now() + 1000;
      const at = (ms: number) => new Date(t0 + ms).toISOString();
      const [first, second] = await h.storage.webhooks.claimDue({ claimant: 'c', now: at(0), claimedUntil: at(60_000), limit: 10 });
      assert.ok(first && second);
      const requestHeaders = { 'webhook-id': first.eventId, 'webhook-signature': 'v1,abc' };
      const failed = { id: first.id, claimant: 'c', at: at(10), attempt: 1, durationMs: 7, statusCode: 503, error: 'The endpoint answered HTTP 503.', retryAt: at(20) };
      assert.equal(await h.storage.webhooks.markAttemptFailed({ ...failed, exchange: { requestHeaders, response: { headers: { 'retry-after': '1' }, body: 'busy' } } }), true);
      // The second settles with the next claim, in one step where the adapter offers it.
      const outcome = { sent: true as const, settlement: { id: second.id, claimant: 'c', at: at(11), attempt: 1, durationMs: 3, statusCode: 204, exchange: { requestHeaders: { 'webhook-id': second.eventId }, response: { headers: {}, body: '' } } } };
      const retried = h.storage.webhooks.settleAndClaim
        ? await h.storage.webhooks.settleAndClaim([outcome], { claimant: 'c', now: at(20), claimedUntil: at(60_000), limit: 10 })
        : (await h.storage.webhooks.markSent(outcome.settlement), await h.storage.webhooks.claimDue({ claimant: 'c', now: at(20), claimedUntil: at(60_000), limit: 10 }));
      assert.deepEqual(retried.map((d) => [d.id, d.attempts]), [[first.id, 2]]);
      await h.storage.webhooks.settleMany?.([{ sent: true, settlement: { id: first.id, claimant: 'c', at: at(30), attempt: 2, durationMs: 2, statusCode: 200, exchange: { requestHeaders } } }]);
      if (h.storage.webhooks.settleMany === undefined) await h.storage.webhooks.markSent({ id: first.id, claimant: 'c', at: at(30), attempt: 2, durationMs: 2, statusCode: 200, exchange: { requestHeaders } });
      const detail = await h.storage.webhooks.findDelivery(accountId, endpointId, first.id);
      assert.ok(detail);
      assert.equal(detail.status, 'succeeded');
      assert.equal(JSON.parse(detail.payload).id, first.eventId);
      assert.deepEqual(detail.attemptLog, [
        { attempt: 1, at: at(10), durationMs: 7, statusCode: 503, error: 'The endpoint answered HTTP 503.', requestHeaders, response: { headers: { 'retry-after': '1' }, body: 'busy' } },
        { attempt: 2, at: at(30), durationMs: 2, statusCode: 200, error: null, requestHeaders, response: null },
      ]);
      assert.equal((await h.storage.webhooks.findDelivery(accountId, endpointId, second.id))?.attemptLog.length, 1);
      assert.equal(await h.storage.webhooks.findDelivery(accountId + 1000, endpointId, first.id), undefined);
      assert.equal(await h.storage.webhooks.findDelivery(accountId, endpointId, '999999'), undefined);
    });

    test('when deliveries were given up before and after an instant, then recover queues a new delivery of each one given up since then, in order, and only for that endpoint', async (t) => {
      const { h, accountId, endpointId } = await orderCreatedEndpoint(t, backend);
      for (let i = 0; i < 3; i++) await h.services.orderOperations.createOrder({ accountId });
      const t0 = Date.now() + 1000;
      const at = (ms: number) => new Date(t0 + ms).toISOString();
      const claimed = await h.storage.webhooks.claimDue({ claimant: 'c', now: at(0), claimedUntil: at(60_000), limit: 10 });
      assert.equal(claimed.length, 3);
      const [early, late, later] = claimed as [(typeof claimed)[0], (typeof claimed)[0], (typeof claimed)[0]];
      await h.storage.webhooks.markAttemptFailed({ id: early.id, claimant: 'c', at: at(10), error: 'gone away' });
      await h.storage.webhooks.markAttemptFailed({ id: later.id, claimant: 'c', at: at(30), error: 'gone away' });
      await h.storage.webhooks.markAttemptFailed({ id: late.id, claimant: 'c', at: at(20), error: 'gone away' });
      assert.equal(await h.storage.webhooks.recover({ accountId: accountId + 1000, endpointId, since: at(15), now: at(40) }), 0, "another account's endpoint");
      assert.equal(await h.storage.webhooks.recover({ accountId, endpointId, since: at(15), now: at(40) }), 2);
      const log = await h.storage.webhooks.listDeliveries(accountId, endpointId, undefined, 10);
      // Newest first: the two recovered ones, in their original order, then the three given up.
      assert.deepEqual(
        log.slice(0, 2).map((d) => [d.eventId, d.status, d.attempts]),
        [
          [later.eventId, 'pending', 0],
          [late.eventId, 'pending', 0],
        ],
      );
      assert.equal(log.filter((d) => d.status === 'failed').length, 3);
      // The endpoint is failing (its last attempts failed): one at a time, the earlier first.
      const again = await h.storage.webhooks.claimDue({ claimant: 'c', now: at(40), claimedUntil: at(60_000), limit: 10 });
      assert.deepEqual(again.map((d) => d.eventId), [late.eventId]);
    });

    test('when an endpoint has a rate limit, then claims offer only the starts its rate allows within a second, spaced, and every claimant shares the one rate', async (t) => {
      const { h, accountId, endpointId } = await orderCreatedEndpoint(t, backend);
      assert.equal((await h.storage.webhooks.updateEndpoint(accountId, endpointId, { rateLimit: 4 }))?.rateLimit, 4);
      for (let i = 0; i < 10; i++) await h.services.orderOperations.createOrder({ accountId });
      const t0 = Date.now() + 1000;
      const at = (ms: number) => new Date(t0 + ms).toISOString();
      const first = await h.storage.webhooks.claimDue({ claimant: 'c', now: at(0), claimedUntil: at(60_000), limit: 10 });
      // 4 a second: starts at 0, 250, 500, 750 and 1000 ms fit within the second ahead.
      assert.deepEqual(first.map((d) => d.notBefore), [at(0), at(250), at(500), at(750), at(1000)]);
      assert.deepEqual(await h.storage.webhooks.claimDue({ claimant: 'd', now: at(0), claimedUntil: at(60_000), limit: 10 }), [], 'another claimant: the second is taken');
      const next = await h.storage.webhooks.claimDue({ claimant: 'd', now: at(300), claimedUntil: at(60_000), limit: 10 });
      assert.deepEqual(next.map((d) => d.notBefore), [at(1250)]);
      // Without a limit a claim takes every due one, with no start time.
      await h.storage.webhooks.updateEndpoint(accountId, endpointId, { rateLimit: null });
      const rest = await h.storage.webhooks.claimDue({ claimant: 'c', now: at(400), claimedUntil: at(60_000), limit: 10 });
      assert.equal(rest.length, 4);
      assert.ok(rest.every((d) => d.notBefore === undefined));
    });

    test("when an attempt fails with a pause (Retry-After), then nothing of that endpoint is offered until the pause ends, and another endpoint's deliveries go on", async (t) => {
      const { h, accountId, auth, endpointId } = await orderCreatedEndpoint(t, backend);
      const other = await h.app.inject({ method: 'POST', url: '/v2/webhook-endpoints', headers: { ...auth, 'content-type': 'application/json' }, payload: { url: 'http://127.0.0.1:9/other', eventTypes: ['order.created'] } });
      const otherId = other.json<{ id: string }>().id;
      for (let i = 0; i < 2; i++) await h.services.orderOperations.createOrder({ accountId });
      const t0 = Date.now() + 1000;
      const at = (ms: number) => new Date(t0 + ms).toISOString();
      const claimed = await h.storage.webhooks.claimDue({ claimant: 'c', now: at(0), claimedUntil: at(60_000), limit: 10 });
      const mine = claimed.filter((d) => d.destination === endpointId);
      assert.equal(mine.length, 2);
      const [busy, fine] = mine as [(typeof mine)[0], (typeof mine)[0]];
      await h.storage.webhooks.markAttemptFailed({ id: busy.id, claimant: 'c', at: at(10), statusCode: 429, error: 'The endpoint answered HTTP 429.', retryAt: at(5000), pauseUntil: at(5000) });
      await h.storage.webhooks.markAttemptFailed({ id: fine.id, claimant: 'c', at: at(10), statusCode: 500, error: 'The endpoint answered HTTP 500.', retryAt: at(20) });
      for (const d of claimed.filter((d) => d.destination === otherId)) await h.storage.webhooks.markAttemptFailed({ id: d.id, claimant: 'c', at: at(10), error: 'refused', retryAt: at(20) });
      assert.equal((await h.storage.webhooks.findEndpoint(accountId, endpointId))?.pausedUntil, at(5000));
      const retried = await h.storage.webhooks.claimDue({ claimant: 'c', now: at(30), claimedUntil: at(60_000), limit: 10 });
      assert.deepEqual(new Set(retried.map((d) => d.destination)), new Set([otherId]));
      // Once it ends, the endpoint's deliveries go again (one at a time, since it is failing: the earliest due first).
      const after = await h.storage.webhooks.claimDue({ claimant: 'c', now: at(5000), claimedUntil: at(60_000), limit: 10 });
      assert.deepEqual(after.filter((d) => d.destination === endpointId).map((d) => d.id), [fine.id]);
    });

    test('when endpoints are created, read, listed, updated, rotated and deleted, then each is seen by its own account only', async (t) => {
      const h = await webhooksHarness(t, backend);
      const { accountId } = await h.tenant();
      const other = await h.tenant();
      const at = '2026-11-24T10:00:00.000Z';
      const base = { accountId, url: 'https://hooks.example.com/a', eventTypes: null, description: null, rateLimit: null, sealedSecret: 'v1.aa.bb', createdAt: at };
      const first = await h.storage.webhooks.createEndpoint({ ...base, id: 'we_00000000000000000000000000000001' }, { maxPerAccount: 20 });
      assert.ok(typeof first === 'object');
      await h.storage.webhooks.createEndpoint({ ...base, id: 'we_00000000000000000000000000000002', eventTypes: ['order.created', 'order.cancelled'], description: 'two' }, { maxPerAccount: 20 });
      assert.deepEqual(first, { id: 'we_00000000000000000000000000000001', accountId, url: base.url, eventTypes: null, description: null, status: 'enabled', disabledReason: null, rateLimit: null, pausedUntil: null, createdAt: at });
      assert.equal(await h.storage.webhooks.findEndpoint(other.accountId, first.id), undefined);
      assert.deepEqual((await h.storage.webhooks.listEndpoints(accountId, undefined, 1)).map((e) => e.id), [first.id]);
      const [second] = await h.storage.webhooks.listEndpoints(accountId, first.id, 10);
      assert.deepEqual(second?.eventTypes, ['order.created', 'order.cancelled']);
      assert.deepEqual(await h.storage.webhooks.listEndpoints(other.accountId, undefined, 10), []);
      assert.equal(await h.storage.webhooks.updateEndpoint(other.accountId, first.id, { status: 'disabled' }), undefined);
      const updated = await h.storage.webhooks.updateEndpoint(accountId, first.id, { status: 'disabled', description: 'note', eventTypes: ['order.shipped'] });
      assert.deepEqual([updated?.status, updated?.description, updated?.eventTypes, updated?.url], ['disabled', 'note', ['order.shipped'], base.url]);
      const cleared = await h.storage.webhooks.updateEndpoint(accountId, first.id, { description: null, eventTypes: null, status: 'enabled' });
      assert.deepEqual([cleared?.status, cleared?.description, cleared?.eventTypes], ['enabled', null, null]);
      assert.equal(await h.storage.webhooks.rotateSecret(other.accountId, first.id, { sealedSecret: 'v1.cc.dd', previousUntil: at }), undefined);
      assert.equal((await h.storage.webhooks.rotateSecret(accountId, first.id, { sealedSecret: 'v1.cc.dd', previousUntil: at }))?.id, first.id);
      assert.equal(await h.storage.webhooks.deleteEndpoint(other.accountId, first.id), false);
      assert.equal(await h.storage.webhooks.deleteEndpoint(accountId, first.id), true);
      assert.equal(await h.storage.webhooks.findEndpoint(accountId, first.id), undefined);
    });

    test('when a claimed delivery is released, then it is due again unattempted; the log lists it, and a redelivery queues another', async (t) => {
      const { h, accountId, endpointId } = await orderCreatedEndpoint(t, backend);
      await h.services.orderOperations.createOrder({ accountId });
      const now = new Date(Date.now() + 1000).toISOString();
      const [claimed] = await h.storage.webhooks.claimDue({ claimant: 'a', now, claimedUntil: FAR, limit: 10 });
      assert.ok(claimed);
      assert.equal(await h.storage.webhooks.release({ id: claimed.id, claimant: 'b', at: now }), false);
      assert.equal(await h.storage.webhooks.release({ id: claimed.id, claimant: 'a', at: now }), true);
      const [again] = await h.storage.webhooks.claimDue({ claimant: 'c', now, claimedUntil: FAR, limit: 10 });
      assert.equal(again?.attempts, 1);
      const [logged] = await h.storage.webhooks.listDeliveries(accountId, endpointId, undefined, 10);
      assert.equal(logged?.eventId, claimed.eventId);
      assert.equal(logged?.status, 'pending');
      assert.equal(await h.storage.webhooks.redeliver({ accountId, eventId: claimed.eventId, now }), 1);
      assert.equal(await h.storage.webhooks.redeliver({ accountId: accountId + 1000, eventId: claimed.eventId, now }), undefined);
      assert.equal((await h.storage.webhooks.listDeliveries(accountId, endpointId, undefined, 10)).length, 2);
    });
    test('when every attempt to an endpoint has failed for 5 days, then the endpoint is disabled and says why; a success in between resets the count', async (t) => {
      const { h, accountId, endpointId } = await orderCreatedEndpoint(t, backend);
      await h.services.orderOperations.createOrder({ accountId });
      const t0 = Date.now() + 1000;
      const iso = (ms: number) => new Date(t0 + ms).toISOString();
      const DAY = 24 * 60 * 60 * 1000;
      const [first] = await h.storage.webhooks.claimDue({ claimant: 'a', now: iso(0), claimedUntil: iso(1000), limit: 1 });
      assert.ok(first);
      await h.storage.webhooks.markAttemptFailed({ id: first.id, claimant: 'a', at: iso(0), error: 'HTTP 500', statusCode: 500, retryAt: iso(5 * DAY - 1) });
      const [second] = await h.storage.webhooks.claimDue({ claimant: 'b', now: iso(5 * DAY - 1), claimedUntil: FAR, limit: 1 });
      assert.equal(second?.id, first.id);
      await h.storage.webhooks.markAttemptFailed({ id: first.id, claimant: 'b', at: iso(5 * DAY - 1), error: 'HTTP 500', statusCode: 500, retryAt: iso(5 * DAY) });
      assert.equal((await h.storage.webhooks.findEndpoint(accountId, endpointId))?.status, 'enabled', 'not yet 5 days');
      const [third] = await h.storage.webhooks.claimDue({ claimant: 'c', now: iso(5 * DAY), claimedUntil: FAR, limit: 1 });
      await h.storage.webhooks.markAttemptFailed({ id: third?.id ?? '', claimant: 'c', at: iso(5 * DAY), error: 'HTTP 500', statusCode: 500, retryAt: iso(6 * DAY) });
      const disabled = await h.storage.webhooks.findEndpoint(accountId, endpointId);
      assert.equal(disabled?.status, 'disabled');
      assert.match(String(disabled?.disabledReason), /5 days/);
      assert.deepEqual(await disabledEntries(h.storage, accountId), [
        { at: iso(5 * DAY), actor: { kind: 'system' }, target: { kind: 'webhook_endpoint', id: endpointId }, details: { reason: 'Every delivery attempt failed for 5 days.' } },
      ]);
      // A disabled endpoint's deliveries wait; enabling it again clears the streak.
      assert.deepEqual(await h.storage.webhooks.claimDue({ claimant: 'd', now: FAR, claimedUntil: FAR, limit: 1 }), []);
      const enabled = await h.storage.webhooks.updateEndpoint(accountId, endpointId, { status: 'enabled' });
      assert.deepEqual([enabled?.status, enabled?.disabledReason], ['enabled', null]);
      assert.equal((await h.storage.webhooks.claimDue({ claimant: 'd', now: FAR, claimedUntil: FAR, limit: 1 })).length, 1);
    });

    test('when a receiver answers 410 to two claimed deliveries, then the endpoint is disabled once, with one system audit entry naming it', async (t) => {
      const { h, accountId, endpointId } = await orderCreatedEndpoint(t, backend);
      await h.services.orderOperations.createOrder({ accountId });
      await h.services.orderOperations.createOrder({ accountId });
      const now = new Date(Date.now() + 1000).toISOString();
      const [first, second] = await h.storage.webhooks.claimDue({ claimant: 'a', now, claimedUntil: FAR, limit: 10 });
      assert.ok(first && second);
      const gone = { claimant: 'a', at: now, error: 'HTTP 410', statusCode: 410, gone: true };
      assert.deepEqual(await Promise.all([h.storage.webhooks.markAttemptFailed({ ...gone, id: first.id }), h.storage.webhooks.markAttemptFailed({ ...gone, id: second.id })]), [true, true]);
      assert.deepEqual(await h.storage.webhooks.findEndpoint(accountId, endpointId).then((e) => [e?.status, e?.disabledReason]), ['disabled', 'The endpoint answered HTTP 410 Gone.']);
      assert.deepEqual(await disabledEntries(h.storage, accountId), [
        { at: now, actor: { kind: 'system' }, target: { kind: 'webhook_endpoint', id: endpointId }, details: { reason: 'The endpoint answered HTTP 410 Gone.' } },
      ]);
    });

    test('when the audit entry of a disabling cannot be written, then the attempt is not recorded and the endpoint stays enabled', async (t) => {
      const { h, accountId, endpointId } = await orderCreatedEndpoint(t, backend);
      await h.services.orderOperations.createOrder({ accountId });
      const now = new Date(Date.now() + 1000).toISOString();
      const [claimed] = await h.storage.webhooks.claimDue({ claimant: 'a', now, claimedUntil: FAR, limit: 10 });
      assert.ok(claimed);
      const failure = failInserts(h.database, 'audit_events');
      await failure.arm();
      const gone = { id: claimed.id, claimant: 'a', at: now, error: 'HTTP 410', statusCode: 410, gone: true };
      try {
        await assert.rejects(h.storage.webhooks.markAttemptFailed(gone), /forced failure/);
      } finally {
        await failure.allow();
      }
      assert.equal((await h.storage.webhooks.findEndpoint(accountId, endpointId))?.status, 'enabled');
      const [delivery] = await h.storage.webhooks.listDeliveries(accountId, endpointId, undefined, 10);
      assert.deepEqual([delivery?.status, delivery?.error], ['pending', null]);
      assert.equal(await h.storage.webhooks.markAttemptFailed(gone), true);
      assert.equal((await disabledEntries(h.storage, accountId)).length, 1);
    });
  });
}
