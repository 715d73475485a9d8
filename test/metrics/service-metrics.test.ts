import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createTenant, eventually } from '../support/quickstart.js';
import { startServer } from '../support/process.js';
import { httpBackends } from '../support/storage.js';
import { testServices } from '../support/container.js';
import { databaseUrlOf, scrape, total } from './scrape.js';

for (const backend of httpBackends()) {
  describe(`the service's own metrics (${backend.name})`, () => {
    test('when orders are cancelled, keys looked up and messages delivered, then the scrape counts cancels by result, group commits, key lookups, deliveries (and the pool on PostgreSQL)', async (t) => {
      const { config, storage } = await backend.freshDatabase(t);
      const services = testServices(storage);
      const { account, auth } = await createTenant(services, 'Counted');
      const order = await services.orderOperations.createOrder({ accountId: account.id, petId: 1n, quantity: 1 });
      const server = await startServer(t, { DATABASE_URL: databaseUrlOf(config) });
      assert.ok(server.metricsUrl && server.quickstartUrl);

      const cancel = (id: bigint) => fetch(`${server.baseUrl}/v1/store/orders/${id}`, { method: 'DELETE', headers: auth });
      assert.equal((await cancel(order.id)).status, 204);
      assert.equal((await cancel(order.id + 1000n)).status, 404);
      const posted = await fetch(`${server.quickstartUrl}/messages`, {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json' },
        body: JSON.stringify({ message: 'counted' }),
      });
      assert.equal(posted.status, 202);

      const samples = await eventually(async () => {
        const scraped = await scrape(server.metricsUrl ?? '');
        return total(scraped, 'store_message_delivery_attempts_total', { outcome: 'sent' }) === 1 ? scraped : undefined;
      });
      assert.equal(total(samples, 'store_order_cancels_total', { result: 'cancelled' }), 1);
      assert.equal(total(samples, 'store_order_cancels_total', { result: 'not_found' }), 1);
      assert.equal(total(samples, 'store_order_cancels_total', { result: 'not_pending' }), 0);
      assert.equal(total(samples, 'store_group_commit_batch_size_count'), 2);
      // Each cancel's wait for its batch: two waits, each longer than nothing.
      assert.equal(total(samples, 'store_group_commit_wait_seconds_count'), 2);
      assert.ok(total(samples, 'store_group_commit_wait_seconds_sum') > 0);
      assert.equal(total(samples, 'store_message_delivery_attempts_total', { outcome: 'failed' }), 0);
      const lookups = total(samples, 'store_api_key_lookups_total', { source: 'cache' });
      const misses = total(samples, 'store_api_key_lookups_total', { source: 'database' });
      assert.ok(lookups >= 3, `three authenticated requests look the key up (${lookups})`);
      assert.ok(misses >= 1 && misses < lookups, `the cache answers some of them (${misses} of ${lookups} reached the database)`);
      const pool = samples.filter((s) => s.name === 'store_database_pool_connections');
      if (backend.name !== 'sqlite') assert.deepEqual(pool.map((s) => s.labels.state).sort(), ['idle', 'in_use', 'waiting']);
      else assert.equal(pool.length, 0);
    });
  });
}
