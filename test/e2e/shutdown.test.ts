import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { runBin, startServer, waitFor } from '../support/process.js';

test('when SIGTERM arrives mid-request, then that request still completes, new connections are refused, and the exit code is 0', async (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'store-orders-shutdown-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const env = { DATABASE_URL: `sqlite:${path.join(dir, 'store.db')}` };
  await runBin(['accounts', 'create', '--name', 'A'], env);
  const key = /so_prod_\w+/.exec((await runBin(['keys', 'create', '--account', '1'], env)).stdout)?.[0] ?? '';
  const server = await startServer(t, env);
  // The store host's operations take no request body (docs/errors.md), so the
  // request whose body is still arriving goes to the one operation that
  // takes one: POST /messages on the quickstart host of the same process.
  const { hostname, port } = new URL(server.quickstartUrl ?? '');

  // A request whose body is still arriving when the signal comes.
  const socket = connect(Number(port), hostname);
  let response = '';
  socket.setEncoding('utf8').on('data', (chunk: string) => (response += chunk));
  const ended = new Promise<void>((resolve) => socket.on('close', () => resolve()));
  await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
  socket.write(
    `POST /messages HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\n` +
      'Content-Type: application/json\r\nContent-Length: 19\r\n\r\n{"message":',
  );
  // The server has the request once it counts it in progress (it logs a request only when it completes).
  const metricsUrl = server.metricsUrl ?? '';
  await waitFor(
    () => fetch(metricsUrl).then(async (scrape) => /^http_server_active_requests\{server="quickstart"\} 1$/m.test(await scrape.text())),
    'the server to receive the request head',
  );
  server.child.kill('SIGTERM');
  await waitFor(() => server.stdout().includes('"msg":"shutting down"'), 'the server to start shutting down');

  // New connections are refused while the in-flight request is still open.
  await waitFor(
    () => fetch(`${server.baseUrl}/healthz`).then(() => false, () => true),
    'the listener to close',
  );
  socket.end('"after"}');
  await ended;

  assert.match(response, /^HTTP\/1\.1 202 Accepted/);
  assert.match(response, /"message":"after","status":"queued"/);
  assert.equal(await server.exited, 0);
});
