/**
 * A 204 is a promise: the cancellation is durable. The server is killed with
 * SIGKILL in the middle of a cancel load (no graceful shutdown, nothing
 * flushed by us), restarted, and every acknowledged cancel must still hold,
 * with nothing else changed.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { OrderStatus } from '../../src/orders/orders-repository.js';
import { sharedDatabases } from '../support/e2e-databases.js';
import { startServer, type RunningServer } from '../support/process.js';

async function killed(server: RunningServer): Promise<void> {
  server.child.kill('SIGKILL');
  await server.exited;
}

const ORDERS = 400;
const WORKERS = 8;
/** The crash comes after this many acknowledged cancels, well before the last. */
const ACKS_BEFORE_CRASH = 60;

type Outcome = 'acknowledged' | 'refused' | 'unknown';

for (const database of sharedDatabases) {
  describe('crash safety', () => {
    test(`when the server on ${database.name} is killed mid-load and restarted, then every 204 cancel holds and nothing else changed`, async (t) => {
      const shared = await database.create(t);
      const env = { DATABASE_URL: shared.url };
      const server = await startServer(t, env);
      const { services, storage } = shared.open();
      const account = await services.accounts.createAccount({ name: 'Main Street Pets' });
      const bystander = await services.accounts.createAccount({ name: 'Harbour Pets' });
      const { secret } = await services.apiKeys.createKey({ accountId: account.id });
      for (let id = 1; id <= ORDERS; id++) await services.orderOperations.createOrder({ accountId: account.id, id: BigInt(id), quantity: 1 });
      for (let id = 1001; id <= 1010; id++) {
        await services.orderOperations.createOrder({ accountId: account.id, id: BigInt(id), quantity: 2 });
        await services.orderOperations.shipOrder(BigInt(id));
      }
      for (let id = 2001; id <= 2010; id++) await services.orderOperations.createOrder({ accountId: bystander.id, id: BigInt(id), quantity: 3 });
      const before = [...(await storage.orders.listAll(account.id)), ...(await storage.orders.listAll(bystander.id))];

      // Cancel orders 1..ORDERS with WORKERS requests in flight; SIGKILL the
      // server once ACKS_BEFORE_CRASH cancels have been acknowledged.
      const outcomes = new Map<bigint, Outcome>();
      let next = 1;
      let acks = 0;
      let crash: Promise<void> | undefined;
      const worker = async () => {
        while (next <= ORDERS && crash === undefined) {
          const id = BigInt(next++);
          outcomes.set(id, 'unknown');
          try {
            const response = await fetch(`${server.baseUrl}/v1/store/orders/${id}`, {
              method: 'DELETE',
              headers: { authorization: `Bearer ${secret}` },
            });
            await response.arrayBuffer();
            outcomes.set(id, response.status === 204 ? 'acknowledged' : 'refused');
            if (response.status === 204 && ++acks === ACKS_BEFORE_CRASH) crash = killed(server);
          } catch {
            // The connection died with the server: the cancel may or may not have happened.
          }
        }
      };
      await Promise.all(Array.from({ length: WORKERS }, worker));
      await crash;
      assert.equal(server.child.signalCode, 'SIGKILL');
      assert.equal([...outcomes.values()].filter((o) => o === 'refused').length, 0, 'no cancel of a pending order may be refused');
      const acknowledged = [...outcomes].filter(([, o]) => o === 'acknowledged').map(([id]) => id);
      assert.ok(acknowledged.length >= ACKS_BEFORE_CRASH && acknowledged.length < ORDERS, `acknowledged ${acknowledged.length}`);

      const restarted = await startServer(t, env);
      const after = new Map(
        [...(await storage.orders.listAll(account.id)), ...(await storage.orders.listAll(bystander.id))].map((o) => [o.id, o]),
      );
      for (const order of before) {
        const now = after.get(order.id);
        const outcome = outcomes.get(order.id);
        let expected: OrderStatus[] = [order.status];
        if (outcome === 'acknowledged') expected = ['cancelled'];
        if (outcome === 'unknown') expected = ['pending', 'cancelled'];
        assert.ok(now !== undefined && expected.includes(now.status), `order ${order.id} (${outcome ?? 'never sent'}) is ${now?.status}`);
        assert.deepEqual({ ...now, status: order.status }, order, `order ${order.id} changed beyond its status`);
      }

      const listing = await fetch(`${restarted.baseUrl}/v1/store/orders`, { headers: { authorization: `Bearer ${secret}` } });
      assert.equal(listing.status, 200);
      const listed = new Set(((await listing.json()) as { id: number }[]).map((o) => BigInt(o.id)));
      for (const id of acknowledged) assert.ok(!listed.has(id), `acknowledged cancel of ${id} is listed again`);
      for (let id = 1001n; id <= 1010n; id++) assert.ok(listed.has(id));
    });
  });
}
