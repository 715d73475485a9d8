import assert from 'node:assert/strict';
import { once } from 'node:events';
import { connect, type Socket } from 'node:net';
import { describe, test, type TestContext } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Limits } from '../../src/config/limits.js';
import { ConfigError, loadConfig } from '../../src/config/config.js';
import { createTestApp } from '../support/app.js';
import { testConfig } from '../support/container.js';
import { listenLocal, parseResponse } from '../support/raw-http.js';
import { httpBackends } from '../support/storage.js';

/*
 * Issue 19 #3: one client address holding slow connections must not make the
 * host unreachable for others. 127.0.0.2 is loopback too (Linux), so a client
 * bound to it is a second address.
 */

const TEST_LIMITS: Limits = testConfig().limits;
const backend = httpBackends()[0];
assert.ok(backend);

/** A connection from `localAddress`, closed when the test ends. */
function connectFrom(t: TestContext, port: number, localAddress: string): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect({ port, host: '127.0.0.1', localAddress }, () => resolve(socket));
    socket.on('error', reject);
    t.after(() => socket.destroy());
  });
}

/** Everything the server sends on `socket` (after writing `request`, if any) until it closes the connection. */
async function readToClose(socket: Socket, request?: string): Promise<string> {
  let text = '';
  socket.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
  socket.removeAllListeners('error');
  socket.on('error', () => undefined);
  if (request !== undefined) socket.write(request);
  if (!socket.closed) await once(socket, 'close');
  return text;
}

/**
 * A slow client: a connection that has sent part of its request headers and
 * waits. Dropped when the test's body ends, pass or fail: closing the app
 * would wait for it (Node stops timing out requests once the server closes).
 */
async function slowClient(t: TestContext, port: number, localAddress: string): Promise<Socket> {
  const socket = await connectFrom(t, port, localAddress);
  socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: ');
  return socket;
}

/** Runs `body`, then drops the slow clients it opened. */
async function withSlowClients(body: (held: Socket[]) => Promise<void>): Promise<void> {
  const held: Socket[] = [];
  try {
    await body(held);
  } finally {
    for (const socket of held) socket.destroy();
  }
}

describe('connections per client address', () => {
  test('when one address holds more slow connections than its bound, then its excess ones get 503 overloaded and another address (and /healthz) still gets through', async (t) => {
    const limits: Limits = { ...TEST_LIMITS, maxConnections: 6, maxConnectionsPerAddress: 3 };
    const { app, tenant } = await createTestApp(t, backend, { limits });
    const { key } = await tenant();
    const port = await listenLocal(app);

    await withSlowClients(async (held) => {
    for (let i = 0; i < 3; i++) held.push(await slowClient(t, port, '127.0.0.1'));
    // Enough to take the process's whole budget, were there no per-address bound.
    for (let i = 0; i < 3; i++) {
      const refused = parseResponse(await readToClose(await connectFrom(t, port, '127.0.0.1')));
      assert.equal(refused.statusCode, 503);
      assert.deepEqual(JSON.parse(refused.body), {
        code: 'overloaded',
        message: 'Too many connections from your address (at most 3); close some and retry.',
        status: 503,
      });
      assert.equal(refused.headers['retry-after'], '5');
      assert.equal(refused.headers.connection, 'close');
    }

    const healthz = parseResponse(await readToClose(await connectFrom(t, port, '127.0.0.2'), 'GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'));
    assert.equal(healthz.statusCode, 200);
    const listing = parseResponse(
      await readToClose(await connectFrom(t, port, '127.0.0.2'), `GET /v1/store/orders HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nConnection: close\r\n\r\n`),
    );
    assert.equal(listing.statusCode, 200);

    // The held connections are still served, and a closed one frees its place.
    const [first] = held;
    assert.ok(first);
    const finished = parseResponse(await readToClose(first, 'a\r\nConnection: close\r\n\r\n'));
    assert.equal(finished.statusCode, 200);
    let again = '';
    for (let attempt = 0; attempt < 50 && !again.startsWith('HTTP/1.1 200'); attempt++) {
      if (attempt > 0) await sleep(20);
      again = await readToClose(await connectFrom(t, port, '127.0.0.1'), 'GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    }
    assert.match(again, /^HTTP\/1\.1 200 /);
    });
  });

  test('when the connections come from a trusted proxy, then they are not bounded per address', async (t) => {
    const limits: Limits = { ...TEST_LIMITS, maxConnections: 10, maxConnectionsPerAddress: 2, trustProxy: ['loopback'] };
    const { app } = await createTestApp(t, backend, { limits });
    const port = await listenLocal(app);
    await withSlowClients(async (held) => {
    for (let i = 0; i < 4; i++) held.push(await slowClient(t, port, '127.0.0.1'));
    const answer = parseResponse(await readToClose(await connectFrom(t, port, '127.0.0.1'), 'GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'));
    assert.equal(answer.statusCode, 200);
    });
  });

  test('when MAX_CONNECTIONS_PER_ADDRESS is unset, then it is an eighth of MAX_CONNECTIONS; when set, it must be less than MAX_CONNECTIONS', () => {
    assert.equal(loadConfig({}, '/srv/app').limits.maxConnectionsPerAddress, 128);
    assert.equal(loadConfig({ MAX_CONNECTIONS: '4' }, '/srv/app').limits.maxConnectionsPerAddress, 1);
    assert.equal(loadConfig({ MAX_CONNECTIONS_PER_ADDRESS: '0' }, '/srv/app').limits.maxConnectionsPerAddress, 0);
    assert.equal(loadConfig({ MAX_CONNECTIONS: '100', MAX_CONNECTIONS_PER_ADDRESS: '99' }, '/srv/app').limits.maxConnectionsPerAddress, 99);
    assert.throws(
      () => loadConfig({ MAX_CONNECTIONS: '100', MAX_CONNECTIONS_PER_ADDRESS: '100' }, '/srv/app'),
      (error: unknown) => error instanceof ConfigError && /MAX_CONNECTIONS_PER_ADDRESS must be less than MAX_CONNECTIONS/.test(error.message),
    );
  });
});
