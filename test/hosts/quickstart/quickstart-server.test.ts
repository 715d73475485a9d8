import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createTenant, eventually, startReceiver } from '../../support/quickstart.js';
import type { DatabaseConfig } from '../../../src/config/config.js';
import { startServer } from '../../support/process.js';
import { httpBackends } from '../../support/storage.js';
import { testServices } from '../../support/container.js';

/** The DATABASE_URL a spawned server needs to open `config`'s database. */
function databaseUrlOf(config: DatabaseConfig): string {
  switch (config.kind) {
    case 'sqlite':
      return `sqlite:${config.path}`;
    case 'postgres':
      return config.url;
  }
}

for (const backend of httpBackends()) {
  describe(`store-orders serve with the quickstart host (${backend.name})`, () => {
    test('when serve starts, then each host listens on its own port with only its routes, and SIGTERM stops both with exit 0', async (t) => {
      const { config, storage } = await backend.freshDatabase(t);
      const { auth } = await createTenant(testServices(storage), 'Spawned');
      const server = await startServer(t, { DATABASE_URL: databaseUrlOf(config) });
      assert.ok(server.quickstartUrl);
      assert.notEqual(server.quickstartUrl, server.baseUrl);

      const posted = await fetch(`${server.quickstartUrl}/messages`, {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json' },
        body: JSON.stringify({ message: 'over real HTTP ✓' }),
      });
      assert.equal(posted.status, 202);
      const location = posted.headers.get('location');
      assert.match(String(location), /^\/messages\/.+/);
      const body = (await posted.json()) as { id: string; message: string; status: string };
      assert.equal(body.message, 'over real HTTP ✓');
      assert.equal(body.status, 'queued');
      // No webhook configured: the dispatcher records it as sent.
      await eventually(async () => {
        const current = (await (await fetch(`${server.quickstartUrl}${String(location)}`, { headers: auth })).json()) as { status: string };
        return current.status === 'sent' ? true : undefined;
      });

      const unauthenticated = await fetch(`${server.quickstartUrl}/messages`, { method: 'POST', body: '{}' });
      assert.equal(unauthenticated.status, 401);
      const storeHasNoMessages = await fetch(`${server.baseUrl}/messages`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: '{"message":"x"}' });
      assert.equal(storeHasNoMessages.status, 404);
      const quickstartHasNoOrders = await fetch(`${server.quickstartUrl}/v1/store/orders`, { headers: auth });
      assert.equal(quickstartHasNoOrders.status, 404);
      const orders = await fetch(`${server.baseUrl}/v1/store/orders`, { headers: auth });
      assert.equal(orders.status, 200);

      server.child.kill('SIGTERM');
      assert.equal(await server.exited, 0);
      assert.ok(!server.stdout().includes(auth.authorization.slice('Bearer '.length)));
    });

    test('when the server stops with messages queued, then they are kept and the next server dispatches them', async (t) => {
      const { config, storage } = await backend.freshDatabase(t);
      const { account, auth } = await createTenant(testServices(storage), 'Restart');
      // First life: the webhook takes the first message and never answers; the others wait their turn or fail.
      const stuck = await startReceiver(t, (_request, index) => (index === 0 ? 'hang' : 503));
      const env = { DATABASE_URL: databaseUrlOf(config), MESSAGES_RETRY_BASE_MS: '5', MESSAGES_RETRY_MAX_MS: '20' };
      const first = await startServer(t, { ...env, MESSAGES_WEBHOOK_URL: stuck.url });
      const ids: string[] = [];
      for (const text of ['one', 'two', 'three']) {
        const response = await fetch(`${first.quickstartUrl}/messages`, {
          method: 'POST',
          headers: { ...auth, 'content-type': 'application/json' },
          body: JSON.stringify({ message: text }),
        });
        assert.equal(response.status, 202);
        ids.push(((await response.json()) as { id: string }).id);
      }
      await stuck.next(1);
      first.child.kill('SIGTERM');
      assert.equal(await first.exited, 0);
      for (const id of ids) assert.equal((await storage.messages.findForAccount(account.id, id))?.status, 'queued');

      // Second life: a working webhook. Every message queued before the restart arrives.
      const working = await startReceiver(t, () => 200);
      const second = await startServer(t, { ...env, MESSAGES_WEBHOOK_URL: working.url });
      await working.next(3);
      await eventually(async () => {
        for (const id of ids) {
          const response = await fetch(`${second.quickstartUrl}/messages/${id}`, { headers: auth });
          if (((await response.json()) as { status: string }).status !== 'sent') return undefined;
        }
        return true;
      });
      assert.deepEqual(new Set(working.received.map((r) => (JSON.parse(r.body) as { message: string }).message)), new Set(['one', 'two', 'three']));
      second.child.kill('SIGTERM');
      assert.equal(await second.exited, 0);
    });

    test('when QUICKSTART_PORT=off, then only the store host listens', async (t) => {
      const { config } = await backend.freshDatabase(t);
      const server = await startServer(t, { DATABASE_URL: databaseUrlOf(config), QUICKSTART_PORT: 'off' });
      assert.equal(server.quickstartUrl, undefined);
      assert.doesNotMatch(server.stderr(), /Quickstart/);
      assert.equal((await fetch(`${server.baseUrl}/healthz`)).status, 200);
      server.child.kill('SIGTERM');
      assert.equal(await server.exited, 0);
    });
  });
}
