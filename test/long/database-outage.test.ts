/**
 * PostgreSQL goes away under a running server and comes back: the server
 * says so truthfully (503 Error records, /readyz included), neither hangs nor
 * crashes, and recovers by itself. It runs its own PostgreSQL, since stopping
 * the shared test server would disturb every other test.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, test, type TestContext } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { openStorage } from '../../src/storage/open-storage.js';
import { startEmbeddedPostgres } from '../support/embedded-postgres.js';
import { runBin, startServer, waitFor } from '../support/process.js';
import { testServices } from '../support/container.js';
import { scrape, total } from '../metrics/scrape.js';

/** Generous: only a bound for a broken build, never a speed requirement. */
const RECOVERY_DEADLINE_MS = 60_000;

async function get(url: string, key?: string): Promise<{ status: number; body: Record<string, unknown> | unknown[] }> {
  const response = await fetch(url, { headers: key === undefined ? {} : { authorization: `Bearer ${key}` } });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

/** Every process of the cluster: the postmaster and its children. */
function clusterProcesses(dataDir: string): number[] {
  const postmaster = Number(readFileSync(path.join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
  const children = execFileSync('pgrep', ['-P', String(postmaster)], { encoding: 'utf8' })
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map(Number);
  return [postmaster, ...children];
}

/** A restartable embedded PostgreSQL, migrated, with an account, its key and, when `orderId` is given, one pending order. */
async function restartablePostgres(t: TestContext, orderId?: bigint) {
  const postgres = await startEmbeddedPostgres({ restartable: true });
  t.after(() => postgres.destroy());
  const storage = openStorage({ kind: 'postgres', url: postgres.url, poolSize: 2 });
  await storage.migrate();
  const services = testServices(storage);
  const account = await services.accounts.createAccount({ name: 'Main Street Pets' });
  const { secret } = await services.apiKeys.createKey({ accountId: account.id });
  if (orderId !== undefined) await services.orderOperations.createOrder({ accountId: account.id, id: orderId, quantity: 1 });
  await storage.close();
  return { postgres, secret };
}

describe('database outage (PostgreSQL)', () => {
  test('when PostgreSQL stops, then requests get 503 Error records; when it returns, then the server recovers by itself', async (t) => {
    const { postgres, secret } = await restartablePostgres(t, 9_007_199_254_740_993n);

    const server = await startServer(t, { DATABASE_URL: postgres.url });
    assert.deepEqual(await get(`${server.baseUrl}/readyz`), { status: 200, body: { status: 'ready' } });
    assert.equal((await get(`${server.baseUrl}/v1/store/orders`, secret)).status, 200);

    await postgres.stop();

    const unavailable = { code: 'service_unavailable', status: 503 };
    const readiness = await get(`${server.baseUrl}/readyz`);
    assert.deepEqual({ ...readiness.body, message: undefined }, { ...unavailable, message: undefined });
    assert.equal(readiness.status, 503);
    const during = await Promise.all([
      ...Array.from({ length: 5 }, () => get(`${server.baseUrl}/v1/store/orders`, secret)),
      fetch(`${server.baseUrl}/v1/store/orders/1`, { method: 'DELETE', headers: { authorization: `Bearer ${secret}` } }).then(async (r) => ({
        status: r.status,
        body: (await r.json()) as Record<string, unknown>,
      })),
    ]);
    for (const reply of during) {
      assert.equal(reply.status, 503);
      assert.deepEqual(Object.keys(reply.body).sort(), ['code', 'message', 'status']);
      assert.deepEqual({ ...reply.body, message: undefined }, { ...unavailable, message: undefined });
    }
    assert.equal((await get(`${server.baseUrl}/healthz`)).status, 200, 'the process itself stays alive');
    assert.equal(server.child.exitCode, null);

    await postgres.start();
    const deadline = Date.now() + RECOVERY_DEADLINE_MS;
    while ((await get(`${server.baseUrl}/readyz`)).status !== 200) {
      assert.ok(Date.now() < deadline, 'the server did not become ready again');
      await sleep(100);
    }
    const orders = await fetch(`${server.baseUrl}/v1/store/orders`, { headers: { authorization: `Bearer ${secret}` } });
    assert.equal(orders.status, 200);
    assert.match(await orders.text(), /"id":9007199254740993\b/);
    assert.ok(!/password|postgres:\/\//i.test(server.stdout() + server.stderr()), 'the database URL never reaches the logs');
  });

  test('when PostgreSQL is down under hundreds of requests, then the log says so in a handful of lines without stacks, and the gauge follows', async (t) => {
    const { postgres, secret } = await restartablePostgres(t);
    // The dispatcher polls every 50 ms: during the outage it fails as often as the requests do.
    const server = await startServer(t, { DATABASE_URL: postgres.url, MESSAGES_POLL_INTERVAL_MS: '50', RATE_LIMIT_REQUESTS: '100000' });
    const { metricsUrl } = server;
    assert.ok(metricsUrl !== undefined);
    assert.equal(total(await scrape(metricsUrl), 'store_database_up'), 1);
    assert.equal((await get(`${server.baseUrl}/v1/store/orders`, secret)).status, 200);
    const before = server.stdout().length;

    await postgres.stop();
    const auth = { authorization: `Bearer ${secret}` };
    const statuses: number[] = [];
    for (let round = 0; round < 30; round++) {
      const replies = await Promise.all([
        ...Array.from({ length: 8 }, () => fetch(`${server.baseUrl}/v1/store/orders`, { headers: auth })),
        ...Array.from({ length: 4 }, (_, i) => fetch(`${server.baseUrl}/v1/store/orders/${round * 4 + i + 1}`, { method: 'DELETE', headers: auth })),
        fetch(`${server.baseUrl}/readyz`),
      ]);
      for (const reply of replies) {
        statuses.push(reply.status);
        await reply.arrayBuffer();
      }
    }
    assert.equal(statuses.length, 390);
    assert.deepEqual(new Set(statuses), new Set([503]), 'every request during the outage is refused');
    assert.equal(total(await scrape(metricsUrl), 'store_database_up'), 0);

    await postgres.start();
    const deadline = Date.now() + RECOVERY_DEADLINE_MS;
    while (total(await scrape(metricsUrl), 'store_database_up') !== 1) {
      assert.ok(Date.now() < deadline, 'the gauge did not say the database is back');
      await sleep(100);
    }
    assert.equal((await get(`${server.baseUrl}/v1/store/orders`, secret)).status, 200);
    // Log lines reach stdout within 250 ms of being written (docs/operations.md): wait for the recovery's.
    await waitFor(() => server.stdout().slice(before).includes('database reachable again after '), 'the recovery line', 5000);

    const lines = server
      .stdout()
      .slice(before)
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line) as { level: number; msg: string });
    // Each request's two access lines are the access log (LOG_LEVEL=warn drops them); everything else is counted.
    const other = lines.filter((line) => line.msg !== 'request completed');
    assert.ok(other.length <= 5, `a bounded handful of lines, got ${other.length}: ${other.map((line) => line.msg).join(' | ')}`);
    assert.equal(other.filter((line) => line.msg.startsWith('database unreachable: ') && line.level === 50).length, 1);
    assert.equal(other.filter((line) => line.msg.startsWith('database reachable again after ')).length, 1);
    assert.ok(!server.stdout().slice(before).includes('"stack"'), `no stack traces: ${server.stdout().slice(before).split('\n').filter((line) => line.includes('"stack"')).join('\n').slice(0, 3000)}`);
  });

  test('when PostgreSQL is unreachable at start, then serve exits 1 with one line and no password or stack trace', async () => {
    const result = await runBin(['serve'], { DATABASE_URL: 'postgres://store:hunter2@127.0.0.1:1/store', PORT: '0' });
    assert.equal(result.code, 1);
    // Issue 19 #10: an operator reads what failed in database terms, not a client's retry hint.
    assert.equal(result.stderr, 'store-orders: cannot serve: cannot connect to the database: connect ECONNREFUSED 127.0.0.1:1\n');
    assert.ok(!(result.stdout + result.stderr).includes('hunter2'));
  });

  test(
    'when PostgreSQL freezes (accepts connections, never answers), then requests get 503 Error records, not hangs',
    // A bound so that a hang fails the test instead of stalling the run; the
    // server's own timeouts (3 s connect, 12 s per query) come well before it.
    { timeout: 120_000 },
    async (t) => {
      const postgres = await startEmbeddedPostgres();
      let frozen: number[] = [];
      const thaw = () => {
        for (const pid of frozen) process.kill(pid, 'SIGCONT');
        frozen = [];
      };
      // Thaw first: a stopped postmaster would never act on the stop signal.
      t.after(async () => {
        thaw();
        await postgres.destroy();
      });
      const storage = openStorage({ kind: 'postgres', url: postgres.url, poolSize: 2 });
      await storage.migrate();
      const services = testServices(storage);
      const account = await services.accounts.createAccount({ name: 'Main Street Pets' });
      const { secret } = await services.apiKeys.createKey({ accountId: account.id });
      await storage.close();

      const server = await startServer(t, { DATABASE_URL: postgres.url, DATABASE_POOL_SIZE: '2' });
      assert.equal((await get(`${server.baseUrl}/v1/store/orders`, secret)).status, 200);

      frozen = clusterProcesses(postgres.dataDir);
      for (const pid of frozen) process.kill(pid, 'SIGSTOP');

      // More requests than pooled connections: some wait on a frozen
      // connection (query timeout), the rest for a new one (connect timeout).
      const replies = await Promise.all([
        get(`${server.baseUrl}/readyz`),
        ...Array.from({ length: 4 }, () => get(`${server.baseUrl}/v1/store/orders`, secret)),
      ]);
      for (const reply of replies) {
        assert.equal(reply.status, 503);
        assert.deepEqual({ ...reply.body, message: undefined }, { code: 'service_unavailable', status: 503, message: undefined });
      }
      assert.equal(server.child.exitCode, null);

      thaw();
      const deadline = Date.now() + RECOVERY_DEADLINE_MS;
      while ((await get(`${server.baseUrl}/v1/store/orders`, secret)).status !== 200) {
        assert.ok(Date.now() < deadline, 'the server did not recover');
        await sleep(100);
      }
    },
  );
});
