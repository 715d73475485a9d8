import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { runBin, startServer } from '../support/process.js';

/*
 * What the rate limit holds across processes, measured rather than assumed:
 * counters live in each process's memory, so N processes sharing one
 * database allow up to N × RATE_LIMIT_REQUESTS per key per window, and each
 * process on its own never allows more than RATE_LIMIT_REQUESTS.
 */
test('when two server processes share a database, then each enforces the limit on its own (a key gets at most 2 × limit per window), and last use is written on shutdown', async (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'store-orders-ratelimit-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const env = { DATABASE_URL: `sqlite:${path.join(dir, 'store.db')}`, RATE_LIMIT_REQUESTS: '5', RATE_LIMIT_WINDOW_SECONDS: '3600' };
  assert.equal((await runBin(['accounts', 'create', '--name', 'Limits'], env)).code, 0);
  const created = await runBin(['keys', 'create', '--account', '1', '--json'], env);
  const { key } = JSON.parse(created.stdout) as { key: string };

  const servers = [await startServer(t, env), await startServer(t, env)];
  const statuses: number[][] = [[], []];
  for (let round = 0; round < 8; round++) {
    for (const [i, server] of servers.entries()) {
      const response = await fetch(`${server.baseUrl}/v1/store/orders`, { headers: { authorization: `Bearer ${key}` } });
      await response.arrayBuffer();
      statuses[i]?.push(response.status);
    }
  }
  for (const perProcess of statuses) {
    assert.deepEqual(perProcess, [200, 200, 200, 200, 200, 429, 429, 429]);
  }
  const served = statuses.flat().filter((s) => s === 200).length;
  assert.equal(served, 2 * 5, 'N × limit with N = 2');
  for (const server of servers) server.child.kill('SIGTERM');
  assert.deepEqual(await Promise.all(servers.map((s) => s.exited)), [0, 0]);

  // Last-used times are kept in memory and written on shutdown (or every KEY_USAGE_FLUSH_MS).
  const listed = JSON.parse((await runBin(['keys', 'list', '--account', '1', '--json'], env)).stdout) as { keys: { lastUsedAt: string | null }[] };
  assert.match(String(listed.keys[0]?.lastUsedAt), /^\d{4}-\d{2}-\d{2}T/);
});
