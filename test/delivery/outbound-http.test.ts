/**
 * The one outbound client (src/delivery/outbound-http.ts) against real
 * receivers on loopback, each misbehaving in its own way: every attempt
 * ends within its deadline, whatever the receiver does. The bounds asserted
 * are loose (seconds for a 300 ms deadline): without the deadline these
 * attempts would last as long as the receiver wished.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { describe, test, type TestContext } from 'node:test';
import { createOutboundClient, RESPONSE_BODY_LIMIT } from '../../src/delivery/outbound-http.js';

const DEADLINE_MS = 300;
/** Far above the deadline, far below "as long as the receiver wishes". */
const BOUND_MS = 5000;

/** A receiver on loopback answering with `handle`; closed (connections too) when the test ends. */
async function receiver(t: TestContext, handle: (req: http.IncomingMessage, res: http.ServerResponse) => void): Promise<URL> {
  const sockets = new Set<Socket>();
  const server = http.createServer(handle);
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise((resolve) => server.close(resolve));
  });
  return new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`);
}

function client(t: TestContext) {
  const created = createOutboundClient({ timeoutMs: DEADLINE_MS });
  t.after(() => created.close());
  return created;
}

const REQUEST = { headers: { 'content-type': 'application/json' }, body: Buffer.from('{"id":"evt_1"}') };
const never = new AbortController().signal;

/** How long `work` took to settle, and how. */
async function timed<T>(work: Promise<T>): Promise<{ ms: number; value?: T; error?: Error }> {
  const started = performance.now();
  try {
    const value = await work;
    return { ms: performance.now() - started, value };
  } catch (error) {
    return { ms: performance.now() - started, error: error as Error };
  }
}

describe('the outbound client', () => {
  test('when the receiver answers, then its status, headers and body come back, and the connection is kept for the next attempt', async (t) => {
    const ports = new Set<number>();
    const url = await receiver(t, (req, res) => {
      ports.add(req.socket.remotePort ?? 0);
      req.resume();
      req.on('end', () => res.writeHead(429, { 'retry-after': '7' }).end('slow down'));
    });
    const outbound = client(t);
    const first = await outbound.post(async () => ({ url }), REQUEST, never);
    assert.deepEqual([first.statusCode, first.headers['retry-after'], first.body.toString(), first.truncated], [429, '7', 'slow down', false]);
    await outbound.post(async () => ({ url }), REQUEST, never);
    assert.equal(ports.size, 1, 'one connection for both attempts');
  });

  test('when the receiver accepts the request and never answers, then the attempt ends at its deadline as a timeout', async (t) => {
    const url = await receiver(t, (req) => req.resume());
    const { ms, error } = await timed(client(t).post(async () => ({ url }), REQUEST, never));
    assert.equal(error?.name, 'TimeoutError');
    assert.ok(ms >= DEADLINE_MS - 20 && ms < BOUND_MS, `${ms} ms`);
  });

  test('when the receiver sends its headers and then trickles a body that never ends, then the attempt ends at its deadline', async (t) => {
    const url = await receiver(t, (req, res) => {
      req.resume();
      res.writeHead(200, { 'content-type': 'text/plain' });
      const drip = setInterval(() => res.write('.'), 20);
      res.on('close', () => clearInterval(drip));
    });
    const { ms, error } = await timed(client(t).post(async () => ({ url }), REQUEST, never));
    assert.equal(error?.name, 'TimeoutError');
    assert.ok(ms < BOUND_MS, `${ms} ms`);
  });

  test('when the receiver streams an endless or a huge body, then only the first 64 KB are read and the attempt ends at once', async (t) => {
    const endless = await receiver(t, (req, res) => {
      req.resume();
      res.writeHead(200);
      const chunk = Buffer.alloc(16 * 1024, 'x');
      const pump = () => {
        while (!res.destroyed && res.write(chunk));
        if (!res.destroyed) res.once('drain', pump);
      };
      pump();
    });
    const huge = await receiver(t, (req, res) => {
      req.resume();
      res.writeHead(500).end(Buffer.alloc(5 * 1024 * 1024, 'y'));
    });
    const outbound = client(t);
    for (const [url, status] of [[endless, 200], [huge, 500]] as const) {
      const { ms, value, error } = await timed(outbound.post(async () => ({ url }), REQUEST, never));
      assert.equal(error, undefined);
      assert.deepEqual([value?.statusCode, value?.body.length, value?.truncated], [status, RESPONSE_BODY_LIMIT, true]);
      assert.ok(ms < BOUND_MS, `${ms} ms`);
    }
  });

  test('when finding the target (the address policy and its DNS lookups) never ends, then the attempt still ends at its deadline', async (t) => {
    const { ms, error } = await timed(client(t).post(() => new Promise(() => undefined), REQUEST, never));
    assert.equal(error?.name, 'TimeoutError');
    assert.ok(ms < BOUND_MS, `${ms} ms`);
  });

  test('when the process shuts down mid-attempt, then the attempt ends at once with the shutdown as its reason', async (t) => {
    const url = await receiver(t, (req) => req.resume());
    const shutdown = new AbortController();
    const attempt = timed(client(t).post(async () => ({ url }), REQUEST, shutdown.signal));
    setTimeout(() => shutdown.abort(new Error('shutting down')), 50);
    const { ms, error } = await attempt;
    assert.equal(error?.message, 'shutting down');
    assert.ok(ms < DEADLINE_MS, `${ms} ms`);
  });
});
