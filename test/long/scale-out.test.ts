/**
 * Several stateless server processes on one database: the promises of v1
 * hold across processes, not only within one.
 */
import assert from 'node:assert/strict';
import { describe, test, type TestContext } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { sharedDatabases, type SharedDatabase } from '../support/e2e-databases.js';
import { runBin, startServer, type RunningServer } from '../support/process.js';

interface Reply {
  status: number;
  body: string;
}

async function request(server: RunningServer, method: string, path: string, key: string): Promise<Reply> {
  let response: Response;
  try {
    response = await fetch(`${server.baseUrl}${path}`, { method, headers: { authorization: `Bearer ${key}` } });
  } catch (error) {
    // Say why the server is gone, if it is.
    const state = `exit code ${server.child.exitCode}, signal ${server.child.signalCode}`;
    throw new Error(`${method} ${path} failed (${state}); server stderr:\n${server.stderr()}\nstdout tail:\n${server.stdout().slice(-4000)}`, {
      cause: error,
    });
  }
  return { status: response.status, body: await response.text() };
}

function errorCode(reply: Reply): string {
  const body = JSON.parse(reply.body) as { code: string; status: number };
  assert.equal(body.status, reply.status);
  return body.code;
}

/** Two servers started at the same moment on one empty database: both migrate. */
async function twoServers(t: TestContext, database: SharedDatabase): Promise<[RunningServer, RunningServer]> {
  // One key fires many racing requests here, and on SQLite a process waiting
  // for the other's write lock blocks its event loop, which load shedding
  // would rightly answer with 503. Both bounds have their own tests.
  const env = { DATABASE_URL: database.url, RATE_LIMIT_REQUESTS: '0', LOAD_SHED_MAX_EVENT_LOOP_DELAY_MS: '0' };
  return Promise.all([startServer(t, env), startServer(t, env)]);
}

async function tenant(database: SharedDatabase) {
  const { services, storage } = database.open();
  const account = await services.accounts.createAccount({ name: 'Main Street Pets' });
  const { apiKey, secret } = await services.apiKeys.createKey({ accountId: account.id });
  return { services, storage, account, keyId: apiKey.id, key: secret };
}

for (const makeDatabase of sharedDatabases) {
  describe('scale-out: two server processes on one database', () => {
    test(`when cancels of the same orders race through two servers on ${makeDatabase.name}, then each pending order gets exactly one 204`, async (t) => {
      const database = await makeDatabase.create(t);
      const [a, b] = await twoServers(t, database);
      const { services, storage, account, key } = await tenant(database);

      const pendingIds: bigint[] = [];
      for (let i = 1; i <= 30; i++) pendingIds.push((await services.orderOperations.createOrder({ accountId: account.id, id: BigInt(i) * 1_000_000_007n, quantity: 1 })).id);
      const shippedIds: bigint[] = [];
      for (let i = 1; i <= 5; i++) {
        const order = await services.orderOperations.createOrder({ accountId: account.id, id: 2n ** 62n + BigInt(i), quantity: 1 });
        await services.orderOperations.shipOrder(order.id);
        shippedIds.push(order.id);
      }

      const attempts = [...pendingIds, ...shippedIds].flatMap((id) =>
        [a, b, a, b, a, b].map(async (server) => ({ id, reply: await request(server, 'DELETE', `/v1/store/orders/${id}`, key) })),
      );
      const results = await Promise.all(attempts);

      for (const id of pendingIds) {
        const replies = results.filter((r) => r.id === id).map((r) => r.reply);
        assert.equal(replies.filter((r) => r.status === 204).length, 1, `order ${id}: ${replies.map((r) => r.status).join(',')}`);
        for (const reply of replies.filter((r) => r.status !== 204)) {
          assert.equal(reply.status, 404);
          assert.equal(errorCode(reply), 'order_not_found');
        }
      }
      for (const id of shippedIds) {
        for (const { reply } of results.filter((r) => r.id === id)) {
          assert.equal(reply.status, 409);
          assert.equal(errorCode(reply), 'order_already_shipped');
        }
      }

      const stored = await storage.orders.listAll(account.id);
      assert.deepEqual(
        stored.filter((o) => o.status === 'cancelled').map((o) => o.id),
        pendingIds,
      );
      assert.deepEqual(
        stored.filter((o) => o.status === 'shipped').map((o) => o.id),
        shippedIds,
      );
      for (const server of [a, b]) {
        const listing = await request(server, 'GET', '/v1/store/orders', key);
        assert.equal(listing.status, 200);
        assert.deepEqual(
          (JSON.parse(listing.body) as { id: number }[]).map((o) => o.id),
          shippedIds.map(Number),
        );
      }
    });

    test(`when a cancel races "orders ship" on ${makeDatabase.name}, then the order is either cancelled with 204 or shipped with 409`, async (t) => {
      const database = await makeDatabase.create(t);
      const server = await startServer(t, { DATABASE_URL: database.url });
      const { services, storage, account, key } = await tenant(database);
      const ids: bigint[] = [];
      for (let i = 1; i <= 8; i++) ids.push((await services.orderOperations.createOrder({ accountId: account.id, id: BigInt(i), quantity: 1 })).id);

      // A CLI command takes a while to start before its UPDATE runs. Time one,
      // then send each cancel at a different point of that span, from at once
      // to well after, so that some land before the ship and some after.
      // Which wins does not matter: only that exactly one does and that the
      // responses tell the truth.
      const started = Date.now();
      assert.equal((await runBin(['orders', 'list', '--account', String(account.id)], { DATABASE_URL: database.url })).code, 0);
      const cliMs = Date.now() - started;
      const races: { id: bigint; cancel: Reply; ship: Awaited<ReturnType<typeof runBin>> }[] = [];
      for (const [index, id] of ids.entries()) {
        const ship = runBin(['orders', 'ship', String(id)], { DATABASE_URL: database.url });
        await sleep(Math.round((cliMs * 1.6 * index) / (ids.length - 1)));
        const cancel = await request(server, 'DELETE', `/v1/store/orders/${id}`, key);
        races.push({ id, cancel, ship: await ship });
      }
      for (const { id, cancel, ship } of races) {
        const status = (await storage.orders.findById(id))?.status;
        if (cancel.status === 204) {
          assert.equal(ship.code, 1, `order ${id}: cancel got 204 but ship said: ${ship.stdout}${ship.stderr}`);
          assert.match(ship.stderr, /cancelled/);
          assert.equal(status, 'cancelled');
        } else {
          assert.equal(cancel.status, 409, `order ${id}: ${cancel.status} ${cancel.body}`);
          assert.equal(errorCode(cancel), 'order_already_shipped');
          assert.equal(ship.code, 0, `order ${id}: ship failed: ${ship.stderr}`);
          assert.equal(status, 'shipped');
        }
      }
    });

    test(`when a key is revoked with the CLI on ${makeDatabase.name}, then every running server refuses it within 1 s`, async (t) => {
      const database = await makeDatabase.create(t);
      const [a, b] = await twoServers(t, database);
      const { keyId, key } = await tenant(database);
      for (const server of [a, b]) assert.equal((await request(server, 'GET', '/v1/store/orders', key)).status, 200);

      const revoke = await runBin(['keys', 'revoke', String(keyId)], { DATABASE_URL: database.url });
      assert.equal(revoke.code, 0, revoke.stderr);

      // Each server keeps a key it has verified for at most 1 s (issue 7's
      // in-memory key cache), so once that second has passed both refuse it.
      await new Promise((resolve) => setTimeout(resolve, 1100));
      for (const server of [a, b]) {
        const reply = await request(server, 'GET', '/v1/store/orders', key);
        assert.equal(reply.status, 401);
        assert.equal(errorCode(reply), 'invalid_api_key');
      }
    });
  });
}
