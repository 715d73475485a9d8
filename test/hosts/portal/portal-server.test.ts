/** The portal in `store-orders serve` (the built program): its address in the greeting, on HOST, off with PORTAL_PORT=off. */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test, type TestContext } from 'node:test';
import { startServer } from '../../support/process.js';

function database(t: TestContext): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'store-orders-greeting-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return `sqlite:${path.join(dir, 'store.db')}`;
}

test('when the server starts on a fresh database, then its greeting names the portal at http://localhost:<port> and its sign-up page, which both answer', async (t) => {
  const server = await startServer(t, { DATABASE_URL: database(t) });
  assert.match(server.stderr(), /^Self-service portal at http:\/\/localhost:\d+ /m);
  const portalUrl = server.portalUrl ?? '';
  const response = await fetch(`${portalUrl}/sign-in`);
  assert.equal(response.status, 200);
  assert.match(response.headers.get('content-type') ?? '', /^text\/html/);
  assert.match(await response.text(), /<button type="submit" class="button">Sign in<\/button>/);
  // A fresh database: the greeting sends a new user to sign up in the browser, no CLI needed.
  assert.ok(server.stderr().includes(`Sign up in a browser at ${portalUrl}/sign-up`), server.stderr());
  assert.equal((await fetch(`${portalUrl}/sign-up`)).status, 200);
  server.child.kill('SIGTERM');
  assert.equal(await server.exited, 0);
});

test('when PORTAL_PORT=off, then no portal listens and the greeting does not name one', async (t) => {
  const server = await startServer(t, { DATABASE_URL: database(t), PORTAL_PORT: 'off' });
  assert.equal(server.portalUrl, undefined);
  assert.doesNotMatch(server.stderr(), /portal/i);
  server.child.kill('SIGTERM');
  assert.equal(await server.exited, 0);
});
