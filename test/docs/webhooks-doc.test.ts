import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import path from 'node:path';
import { test } from 'node:test';
import { sqliteBackend } from '../support/storage.js';
import { eventually } from '../support/quickstart.js';
import { ROOT } from '../support/process.js';
import { webhooksHarness } from '../webhooks/support.js';

/** The receiver of docs/webhooks.md, exactly as written there. */
function documentedReceiver(): string {
  const doc = readFileSync(path.join(ROOT, 'docs', 'webhooks.md'), 'utf8');
  const block = /```ts\n([\s\S]*?)```/.exec(doc)?.[1];
  assert.ok(block !== undefined && block.includes('standardwebhooks'), 'docs/webhooks.md has the TypeScript receiver');
  return block;
}

async function freePort(): Promise<number> {
  const probe = createServer().listen(0, '127.0.0.1');
  await new Promise((resolve) => probe.once('listening', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

test('when the walkthrough of docs/webhooks.md is followed, then its receiver verifies the signed delivery of a cancellation and refuses a tampered one', async (t) => {
  const h = await webhooksHarness(t, sqliteBackend);
  const { accountId, auth } = await h.tenant();
  const port = await freePort();
  const created = await h.app.inject({
    method: 'POST',
    url: '/v2/webhook-endpoints',
    headers: { ...auth, 'content-type': 'application/json' },
    payload: { url: `http://127.0.0.1:${port}/store`, eventTypes: ['order.cancelled'] },
  });
  assert.equal(created.statusCode, 201, created.body);
  const { secret } = created.json<{ secret: string }>();

  // The receiver runs from a folder inside the repository, so that it resolves standardwebhooks as a reader's project would.
  const dir = mkdtempSync(path.join(ROOT, 'test', '.webhooks-doc-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const file = path.join(dir, 'receiver.ts');
  writeFileSync(file, documentedReceiver());
  const child = spawn(process.execPath, ['--import', 'tsx', file], {
    cwd: ROOT,
    env: { ...process.env, PORT: String(port), STORE_ORDERS_WEBHOOK_SECRET: secret },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  t.after(() => child.kill('SIGKILL'));
  let out = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
  await eventually(async () => {
    try {
      await fetch(`http://127.0.0.1:${port}/`, { method: 'POST', body: '{}' });
      return true;
    } catch {
      return undefined;
    }
  }, 100);

  const order = await h.services.orderOperations.createOrder({ accountId, petId: 7n, quantity: 1 });
  const cancelled = await h.app.inject({ method: 'DELETE', url: `/v2/store/orders/${order.id}`, headers: auth });
  assert.equal(cancelled.statusCode, 204);
  h.startEngine();
  await eventually(async () => (out.includes('order.cancelled') ? true : undefined), 50);
  assert.match(out, new RegExp(`order\\.cancelled \\{"order":\\{"id":${order.id},"status":"cancelled"`));

  // Tampered: a valid signature of another body.
  const forged = await fetch(`http://127.0.0.1:${port}/store`, {
    method: 'POST',
    headers: { 'webhook-id': 'evt_x', 'webhook-timestamp': String(Math.floor(Date.now() / 1000)), 'webhook-signature': 'v1,AAAA', 'content-type': 'application/json' },
    body: '{"id":"evt_x","type":"order.cancelled"}',
  });
  assert.equal(forged.status, 400);
});
