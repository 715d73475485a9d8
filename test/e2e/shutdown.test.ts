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
  await runBin(['orders', 'create', '--account', '1', '--pet-id', '1', '--quantity', '1', '--id', '77'], env);
  const server = await startServer(t, env);
  const { hostname, port } = new URL(server.baseUrl);

  // A request whose body is still arriving when the signal comes.
  const socket = connect(Number(port), hostname);
  let response = '';
  socket.setEncoding('utf8').on('data', (chunk: string) => (response += chunk));
  const ended = new Promise<void>((resolve) => socket.on('close', () => resolve()));
  await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
  socket.write(
    `DELETE /v1/store/orders/77 HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\n` +
      'Content-Type: application/json\r\nContent-Length: 10\r\n\r\n{"note":',
  );
  await waitFor(() => /"url":"\/v1\/store\/orders\/77"/.test(server.stdout()), 'the server to receive the request head');
  server.child.kill('SIGTERM');
  await waitFor(() => server.stdout().includes('"msg":"shutting down"'), 'the server to start shutting down');

  // New connections are refused while the in-flight request is still open.
  await waitFor(
    () => fetch(`${server.baseUrl}/healthz`).then(() => false, () => true),
    'the listener to close',
  );
  socket.end('1}');
  await ended;

  assert.match(response, /^HTTP\/1\.1 204 No Content/);
  assert.equal(await server.exited, 0);
  const list = await runBin(['orders', 'list', '--account', '1', '--json'], env);
  assert.match(list.stdout, /"status":"cancelled"/);
});
