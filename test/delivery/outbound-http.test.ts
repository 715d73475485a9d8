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
import { anyAddressPolicy, createOutboundClient, RESPONSE_BODY_LIMIT } from '../../src/delivery/outbound-http.js';
import { createUrlPolicy, RefusedUrlError, type Resolver, type UrlPolicy } from '../../src/delivery/url-policy.js';

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

/** Names the test's receivers resolve to: only hooks.test, to loopback. */
const testResolver: Resolver = async (hostname) => (hostname === 'hooks.test' ? [{ address: '127.0.0.1', family: 4 }] : []);

function client(t: TestContext, policy: UrlPolicy = anyAddressPolicy(testResolver)) {
  const created = createOutboundClient({ timeoutMs: DEADLINE_MS, policy });
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
    const first = await outbound.post(url.href, REQUEST, never);
    assert.deepEqual([first.statusCode, first.headers['retry-after'], first.body.toString(), first.truncated], [429, '7', 'slow down', false]);
    await outbound.post(url.href, REQUEST, never);
    assert.equal(ports.size, 1, 'one connection for both attempts');
  });

  test('when the receiver accepts the request and never answers, then the attempt ends at its deadline as a timeout', async (t) => {
    const url = await receiver(t, (req) => req.resume());
    const { ms, error } = await timed(client(t).post(url.href, REQUEST, never));
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
    const { ms, error } = await timed(client(t).post(url.href, REQUEST, never));
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
      const { ms, value, error } = await timed(outbound.post(url.href, REQUEST, never));
      assert.equal(error, undefined);
      assert.deepEqual([value?.statusCode, value?.body.length, value?.truncated], [status, RESPONSE_BODY_LIMIT, true]);
      assert.ok(ms < BOUND_MS, `${ms} ms`);
    }
  });

  test('when a name resolves, then the client connects to the address its policy checked, and a URL its policy refuses is never connected to', async (t) => {
    let requests = 0;
    const url = await receiver(t, (req, res) => {
      requests++;
      req.resume();
      req.on('end', () => res.writeHead(204).end());
    });
    const named = `http://hooks.test:${url.port}/hook`;
    assert.equal((await client(t).post(named, REQUEST, never)).statusCode, 204, 'hooks.test resolved by the policy, to loopback');
    // The tenant rules refuse loopback: the same client code, a stricter policy.
    const tenant = client(t, createUrlPolicy({ allowHttp: true, allowedNetworks: [] }, testResolver));
    const { error } = await timed(tenant.post(named, REQUEST, never));
    assert.ok(error instanceof RefusedUrlError, String(error));
    assert.match(error.reason, /loopback/);
    assert.equal(requests, 1, 'the refused URL was never sent to');
  });

  test('when finding the target (the address policy and its DNS lookups) never ends, then the attempt still ends at its deadline', async (t) => {
    const neverResolves = anyAddressPolicy(() => new Promise(() => undefined));
    const { ms, error } = await timed(client(t, neverResolves).post('http://hooks.test/hook', REQUEST, never));
    assert.equal(error?.name, 'TimeoutError');
    assert.ok(ms < BOUND_MS, `${ms} ms`);
  });

  test('when the process shuts down mid-attempt, then the attempt ends at once with the shutdown as its reason', async (t) => {
    const url = await receiver(t, (req) => req.resume());
    const shutdown = new AbortController();
    const attempt = timed(client(t).post(url.href, REQUEST, shutdown.signal));
    setTimeout(() => shutdown.abort(new Error('shutting down')), 50);
    const { ms, error } = await attempt;
    assert.equal(error?.message, 'shutting down');
    assert.ok(ms < DEADLINE_MS, `${ms} ms`);
  });
});
