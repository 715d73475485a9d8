import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { promisify } from 'node:util';
import { createTestApp } from '../support/app.js';
import { ROOT } from '../support/process.js';
import { sqliteBackend } from '../support/storage.js';

const run = promisify(execFile);
const PACKAGE_DIR = path.join(ROOT, 'packages', 'client');

/**
 * The environment of a command run as an outside user would: without the
 * `npm_*` variables that `npm test` exports, which would otherwise point the
 * inner npm at this repository's workspace settings.
 */
function outsideEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.toLowerCase().startsWith('npm_')));
  return { ...env, ...extra };
}

// What another project writes: plain Node ESM, no TypeScript, no build step.
const CONSUMER = `
import { createStoreOrdersClient, StoreOrdersApiError } from '@store-orders/client';

const client = createStoreOrdersClient({ baseUrl: process.env.STORE_URL, apiKey: process.env.STORE_KEY });
const ids = (orders) => orders.map((order) => order.id.toString());
const before = await client.listOrders();
await client.cancelOrder(9007199254740993n);
const after = await client.listOrders();
let refused;
try {
  await client.cancelOrder(9007199254740993n);
} catch (error) {
  if (!(error instanceof StoreOrdersApiError)) throw error;
  refused = { status: error.status, code: error.code };
}
console.log(JSON.stringify({ before: ids(before), types: before.map((order) => typeof order.id), after: ids(after), refused }));
`;

test('when the client workspace is packed and the tarball installed into another project, then plain Node ESM imports it and lists and cancels exact int64 ids on a running store host', async (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'store-orders-client-package-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));

  const packed = await run('npm', ['pack', '--json', '--pack-destination', dir], { cwd: PACKAGE_DIR, env: outsideEnv(), timeout: 180_000 });
  const [manifest] = JSON.parse(packed.stdout) as { name: string; filename: string; files: { path: string }[] }[];
  assert.ok(manifest, 'npm pack printed no manifest');
  assert.equal(manifest.name, '@store-orders/client');
  const files = manifest.files.map((file) => file.path).sort();
  for (const expected of ['package.json', 'dist/index.js', 'dist/index.d.ts', 'dist/store-orders-client.js', 'dist/exact-json.js']) {
    assert.ok(files.includes(expected), `the tarball holds ${expected}: ${files.join(', ')}`);
  }
  assert.ok(!files.some((file) => file.startsWith('src/')), `the tarball holds the build only: ${files.join(', ')}`);

  const project = path.join(dir, 'consumer');
  await run('mkdir', [project]);
  writeFileSync(path.join(project, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
  writeFileSync(path.join(project, 'consume.mjs'), CONSUMER);
  // openapi-fetch, the client's one runtime dependency, comes from npm's cache when it is there (as after `npm ci`), else from the registry.
  await run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', path.join(dir, manifest.filename)], {
    cwd: project,
    env: outsideEnv(),
    timeout: 300_000,
  });

  const { app, services, tenant } = await createTestApp(t, sqliteBackend);
  const origin = await app.listen({ host: '127.0.0.1', port: 0 });
  const { account, key } = await tenant();
  await services.orderOperations.createOrder({ accountId: account.id, id: 9007199254740992n, petId: 1n, quantity: 1 });
  await services.orderOperations.createOrder({ accountId: account.id, id: 9007199254740993n, petId: 2n, quantity: 1 });

  const { stdout } = await run(process.execPath, ['consume.mjs'], {
    cwd: project,
    env: outsideEnv({ STORE_URL: `${origin}/v1`, STORE_KEY: key }),
    timeout: 60_000,
  });
  assert.deepEqual(JSON.parse(stdout), {
    before: ['9007199254740992', '9007199254740993'],
    types: ['bigint', 'bigint'],
    after: ['9007199254740992'],
    refused: { status: 404, code: 'order_not_found' },
  });
  assert.deepEqual(
    (await services.orderOperations.listAllOrders(account.id)).filter((order) => order.status !== 'cancelled').map((order) => order.id),
    [9007199254740992n],
    'the store cancelled exactly the order the client named',
  );
});
