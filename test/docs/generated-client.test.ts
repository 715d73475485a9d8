import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { promisify } from 'node:util';
import { createTestApp } from '../support/app.js';
import { ROOT } from '../support/process.js';
import { sqliteBackend } from '../support/storage.js';

/** The first ```js block of the "Using a generated client" section of docs/client.md, as a reader copies it. */
function example(): string {
  const doc = readFileSync(path.join(ROOT, 'docs', 'client.md'), 'utf8');
  const section = doc.split('\n## Using a generated client\n')[1];
  assert.ok(section !== undefined, 'docs/client.md has the section "Using a generated client"');
  const block = /```js\n([\s\S]*?)```/.exec(section);
  assert.ok(block?.[1] !== undefined, 'the section has a ```js example');
  return block[1];
}

test('when the "Using a generated client" example of docs/client.md runs against a store host holding orders 9007199254740992 and 9007199254740993, then it lists both exactly and cancels the second, and only it', async (t) => {
  const { app, services, tenant } = await createTestApp(t, sqliteBackend);
  const origin = await app.listen({ host: '127.0.0.1', port: 0 });
  const { account, key } = await tenant();
  await services.orderOperations.createOrder({ accountId: account.id, id: 9007199254740992n, petId: 1n, quantity: 1 });
  await services.orderOperations.createOrder({ accountId: account.id, id: 9007199254740993n, petId: 2n, quantity: 1 });

  // Inside the repository, so that openapi-fetch and lossless-json resolve from its node_modules as from a reader's project.
  const dir = mkdtempSync(path.join(ROOT, '.generated-client-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(path.join(dir, 'cancel-second.mjs'), example());
  const { stdout } = await promisify(execFile)(process.execPath, ['cancel-second.mjs'], {
    cwd: dir,
    env: { ...process.env, STORE_URL: `${origin}/v1`, STORE_KEY: key },
    timeout: 60_000,
  });

  assert.deepEqual(stdout.trim().split('\n'), ["[ '9007199254740992', '9007199254740993' ]", '204 cancelled 9007199254740993']);
  const orders = await services.orderOperations.listAllOrders(account.id);
  assert.deepEqual(
    orders.map((order) => [order.id, order.status]),
    [
      [9007199254740992n, 'pending'],
      [9007199254740993n, 'cancelled'],
    ],
    'the store cancelled exactly the order the example named',
  );
});
