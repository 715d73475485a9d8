import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, test, type TestContext } from 'node:test';
import { openStorage } from '../../src/storage/open-storage.js';
import { testServices } from '../support/container.js';
import { adminQuery } from '../support/templates.js';
import { storageBackends } from '../support/storage.js';
import { eventually } from '../support/quickstart.js';
import { closedPort } from '../support/ports.js';
import { startHookReceiver, webhooksHarness, type WebhooksHarness } from './support.js';

/**
 * A receiver that holds every request it gets until the test lets it go:
 * the slowest possible endpoint short of the timeout, under the test's
 * control, so that "the healthy endpoint did not wait for it" needs no clock.
 */
async function startHeldReceiver(t: TestContext) {
  const held: ServerResponse[] = [];
  let arrived = 0;
  let mostAtOnce = 0;
  let letGo = false;
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    request.resume();
    request.on('end', () => {
      arrived++;
      if (letGo) {
        response.writeHead(204).end();
        return;
      }
      held.push(response);
      mostAtOnce = Math.max(mostAtOnce, held.length);
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  t.after(() => {
    for (const response of held) response.destroy();
    server.closeAllConnections();
    server.close();
  });
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`,
    arrived: () => arrived,
    held: () => held.length,
    mostAtOnce: () => mostAtOnce,
    /** Answers every held request 204, and every later one at once. */
    release() {
      letGo = true;
      for (const response of held.splice(0)) response.writeHead(204).end();
    },
  };
}

/** A receiver that answers 204, but only `afterMs` after each request arrived. */
async function startLateReceiver(t: TestContext, afterMs: number) {
  let arrived = 0;
  const timers = new Set<NodeJS.Timeout>();
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    request.resume();
    arrived++;
    const timer = setTimeout(() => {
      timers.delete(timer);
      if (!response.destroyed) response.writeHead(204).end();
    }, afterMs);
    timers.add(timer);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  t.after(() => {
    for (const timer of timers) clearTimeout(timer);
    server.closeAllConnections();
    server.close();
  });
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`, arrived: () => arrived };
}

const ENV = {
  WEBHOOK_ALLOW_HTTP: 'true',
  WEBHOOK_ALLOWED_NETWORKS: '127.0.0.0/8',
  WEBHOOK_RETRY_SCHEDULE: '100ms,100ms,100ms',
  WEBHOOK_TIMEOUT_MS: '60000',
  WEBHOOK_MAX_IN_FLIGHT: '8',
  WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT: '3',
  // No poll within any test's lifetime: whatever arrives was handed over.
  WEBHOOK_POLL_INTERVAL_MS: '600000',
};

async function subscribe(h: WebhooksHarness, auth: { authorization: string }, url: string): Promise<void> {
  const response = await h.app.inject({
    method: 'POST',
    url: '/v2/webhook-endpoints',
    headers: { ...auth, 'content-type': 'application/json' },
    payload: { url, eventTypes: ['order.created'] },
  });
  assert.equal(response.statusCode, 201, response.body);
}

for (const backend of storageBackends({ postgresDirect: true })) {
  describe(`webhook delivery isolation and hand-off: ${backend.name}`, () => {
    test('when one store has 20 deliveries held by a receiver that does not answer, then another store still gets its delivery at once, and the slow one never has more than its slots', async (t) => {
      const h = await webhooksHarness(t, backend, ENV);
      const slowStore = await h.tenant('Slow Store');
      const healthyStore = await h.tenant('Healthy Store');
      const slow = await startHeldReceiver(t);
      const healthy = await startHookReceiver(t);
      await subscribe(h, slowStore.auth, slow.url);
      await subscribe(h, healthyStore.auth, healthy.url);
      for (let i = 0; i < 20; i++) await h.services.orderOperations.createOrder({ accountId: slowStore.accountId });
      h.startEngine();
      // The slow endpoint takes its three slots and holds them.
      await eventually(async () => (slow.held() === 3 ? true : undefined));
      await h.services.orderOperations.createOrder({ accountId: healthyStore.accountId });
      const [delivered] = await healthy.next(1);
      assert.ok(delivered);
      // Strict: the healthy delivery went through while every slow attempt was still open.
      assert.equal(slow.held(), 3, 'the slow attempts are still waiting for their answers');
      assert.equal(slow.arrived(), 3);
      slow.release();
      await eventually(async () => (slow.arrived() === 20 ? true : undefined));
      assert.equal(slow.mostAtOnce(), 3, 'never more than WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT at once');
    });

    test('when five stores have receivers of every kind (fast, held open, 429 with Retry-After, refusing connections, answering after the timeout) and the store host serves listing requests from 16 clients over HTTP, then every healthy delivery goes through while the held attempts are still open', async (t) => {
      // An attempt times out after 30 s and the late receiver answers after 40: within the test's
      // 15 s, its attempts and the held ones stay open (a shorter timeout ends the held attempts
      // too, and the engine sends them again: "still open" would then depend on the machine's speed).
      const h = await webhooksHarness(t, backend, { ...ENV, WEBHOOK_TIMEOUT_MS: '30000' });
      const healthy = await startHookReceiver(t);
      const held = await startHeldReceiver(t);
      const throttling = await startHookReceiver(t, () => ({ status: 429, headers: { 'retry-after': '1' } }));
      const refusing = `http://127.0.0.1:${await closedPort()}/hooks`;
      const late = await startLateReceiver(t, 40_000);
      const stores = await Promise.all(['Healthy', 'Held', 'Throttling', 'Refusing', 'Late'].map((name) => h.tenant(name)));
      const [healthyStore, ...others] = stores;
      assert.ok(healthyStore !== undefined);
      await subscribe(h, healthyStore.auth, healthy.url);
      for (const [index, url] of [held.url, throttling.url, refusing, late.url].entries()) {
        const store = others[index];
        assert.ok(store !== undefined);
        await subscribe(h, store.auth, url);
        for (let i = 0; i < 10; i++) await h.services.orderOperations.createOrder({ accountId: store.accountId });
      }
      await h.app.listen({ port: 0, host: '127.0.0.1' });
      const base = `http://127.0.0.1:${(h.app.server.address() as AddressInfo).port}`;
      h.startEngine();
      await eventually(async () => (held.held() === 3 && throttling.received.length > 0 && late.arrived() > 0 ? true : undefined));

      // Real API load beside the engine, in the same process.
      let loading = true;
      const statuses = new Map<number, number>();
      const clients = Array.from({ length: 16 }, async () => {
        while (loading) {
          const response = await fetch(`${base}/v1/store/orders`, { headers: healthyStore.auth });
          await response.arrayBuffer();
          statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
        }
      });
      // Loose: all five within 15 s, whatever the machine's load (the figures belong to npm run bench).
      const timeout = new Promise<never>((_resolve, reject) => setTimeout(() => reject(new Error('the healthy deliveries took over 15 s')), 15_000).unref());
      try {
        for (let i = 1; i <= 5; i++) {
          await h.services.orderOperations.createOrder({ accountId: healthyStore.accountId });
          assert.equal((await Promise.race([healthy.next(i), timeout])).length, i);
        }
      } finally {
        loading = false;
        await Promise.all(clients);
      }
      // Strict: the held attempts never ended meanwhile, and never took more than their slots.
      assert.equal(held.held(), 3);
      assert.equal(held.arrived(), 3);
      assert.ok(late.arrived() <= 3, `the late receiver's attempts stay open: ${late.arrived()} arrived`);
      assert.ok((statuses.get(200) ?? 0) > 0, `listing answers: ${JSON.stringify([...statuses])}`);
      assert.deepEqual([...statuses.keys()], [200], 'every listing request answered 200');
      held.release();
    });

    test('when an order is created in this process, then its delivery is handed to the engine without waiting for the poll', async (t) => {
      const h = await webhooksHarness(t, backend, ENV);
      const store = await h.tenant();
      const receiver = await startHookReceiver(t);
      await subscribe(h, store.auth, receiver.url);
      h.startEngine();
      // Let the engine look once and go idle (its next poll is ten minutes away).
      await new Promise((resolve) => setTimeout(resolve, 100));
      for (let i = 1; i <= 3; i++) {
        await h.services.orderOperations.createOrder({ accountId: store.accountId });
        assert.equal((await receiver.next(i)).length, i);
      }
    });
  });
}

for (const backend of storageBackends({ postgresDirect: true }).filter((b) => b.name !== 'sqlite')) {
  test(`when another process queues a delivery on PostgreSQL, then the engine learns of it by LISTEN/NOTIFY, or says it polls behind a transaction-mode pooler (${backend.name})`, async (t) => {
    const h = await webhooksHarness(t, backend, ENV);
    const store = await h.tenant();
    const receiver = await startHookReceiver(t);
    await subscribe(h, store.auth, receiver.url);
    const watch = await h.storage.watchOtherProcesses();
    if (backend.name === 'postgres-pgbouncer') {
      assert.equal(watch.watching, false);
      assert.match(watch.how, /transaction-mode pooler/);
      return;
    }
    assert.equal(watch.watching, true, watch.how);
    // The engine runs on this storage; "another process" is another pool on the same database.
    h.startEngine();
    await new Promise((resolve) => setTimeout(resolve, 100));
    const other = openStorage(h.database);
    t.after(() => other.close());
    const otherServices = testServices(other, { config: h.config });
    await otherServices.orderOperations.createOrder({ accountId: store.accountId });
    assert.equal((await receiver.next(1)).length, 1);
    // The listening connection is cut (a restart of PostgreSQL, a network blip): it connects again and goes on listening.
    if (h.database.kind !== 'postgres') throw new Error('a PostgreSQL database');
    await adminQuery(h.database.url, "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'store-orders listen' AND datname = current_database()");
    await new Promise((resolve) => setTimeout(resolve, 1500));
    await otherServices.orderOperations.createOrder({ accountId: store.accountId });
    // Within 10 s, not the poll's 10 minutes: only a listener that connected again can have told the engine.
    const timeout = new Promise<never>((_resolve, reject) => setTimeout(() => reject(new Error('the listener did not come back')), 10_000).unref());
    assert.equal((await Promise.race([receiver.next(2), timeout])).length, 2);
  });
}
