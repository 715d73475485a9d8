import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { request, type IncomingHttpHeaders } from 'node:http';
import { createServer } from 'node:net';
import { Database } from '../../src/storage/sqlite/sqlite-driver.js';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';
import type { TestContext } from 'node:test';
import type { Limits } from '../../src/config/limits.js';
import type { Clock } from '../../src/shared/clock.js';
import { createTestApp } from '../support/app.js';
import { sqliteBackend } from '../support/storage.js';
import { testConfig } from '../support/container.js';

/** The documented limits, as a process started without limit variables has them. */
const TEST_LIMITS: Limits = testConfig().limits;

const root = fileURLToPath(new URL('../../', import.meta.url));

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

/**
 * Prism as a validating proxy in front of `upstream`: every response is
 * checked against `document`; with --errors a violation turns into a Prism
 * error, and every finding is listed in the sl-violations header.
 */
async function startPrism(t: TestContext, upstream: string, document = 'openapi/openapi.json'): Promise<string> {
  const port = await freePort();
  const prism = spawn(
    process.execPath,
    [
      'node_modules/@stoplight/prism-cli/dist/index.js', 'proxy', document, upstream,
      '--errors', '--validate-request', 'false', '--host', '127.0.0.1', '--port', String(port),
    ],
    { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  t.after(() => {
    prism.kill();
  });
  let output = '';
  await new Promise<void>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('Prism is listening')) resolve();
    };
    prism.stdout.on('data', onData);
    prism.stderr.on('data', onData);
    prism.on('exit', (code) => reject(new Error(`prism exited (${String(code)}) before listening:\n${output}`)));
  });
  return `http://127.0.0.1:${port}`;
}

/** node:http rather than fetch: fetch refuses a GET with a body, which a client may still send. */
function send(url: string, { method, headers = {}, body }: Exchange): Promise<{ status: number; headers: IncomingHttpHeaders; body: string }> {
  return new Promise((resolve, reject) => {
    const lengths = body === undefined ? {} : { 'content-length': String(Buffer.byteLength(body)) };
    const req = request(url, { method, headers: { ...headers, ...lengths } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

interface Exchange {
  name: string;
  method: 'GET' | 'DELETE';
  path: string;
  headers?: Record<string, string>;
  body?: string;
  expect: number;
}

/** Sends each exchange through Prism; none may violate the document, and each must reach the server. */
function runner(prism: string) {
  return async (exchanges: Exchange[]) => {
    const responses = [];
    for (const exchange of exchanges) {
      const response = await send(`${prism}${exchange.path}`, exchange);
      const context = `${exchange.name}: HTTP ${response.status} ${response.body.slice(0, 500)}`;
      assert.equal(response.headers['sl-violations'], undefined, `${context}\nviolations: ${String(response.headers['sl-violations'])}`);
      assert.ok(response.headers['x-request-id'] !== undefined, `${context}\n(answered by Prism, not by the server)`);
      assert.equal(response.status, exchange.expect, context);
      responses.push(response);
    }
    return responses;
  };
}

test('when real requests for every documented status go through Prism validating against openapi.json, then no response violates it', async (t) => {
  let now = new Date('2026-11-22T00:00:00Z');
  const clock: Clock = { now: () => new Date(now) };
  const { app, services, storage, database, tenant } = await createTestApp(t, sqliteBackend, { clock });
  // The document's servers end in /v1 and its paths do not; Prism appends the path to the upstream URL.
  const prism = await startPrism(t, `${await app.listen({ host: '127.0.0.1', port: 0 })}/v1`);

  const { account, auth } = await tenant();
  const empty = await tenant();
  // Prism, being JavaScript, checks int64 against 2^53 - 1; exactness above it is tested without Prism.
  await services.orderOperations.createOrder({ accountId: account.id, id: 9007199254740991n, petId: 9007199254740991n, quantity: 2147483647, shipDate: '2026-12-01T10:00:00+01:00', complete: true });
  const pending = await services.orderOperations.createOrder({ accountId: account.id, id: 1n, petId: 1n, quantity: 1 });
  const shipped = await services.orderOperations.createOrder({ accountId: account.id, id: 2n, petId: 2n, quantity: 3 });
  await services.orderOperations.shipOrder(shipped.id);
  const pet = await services.pets.createPet({ accountId: account.id, name: 'Rex' });
  const wrongKey = { authorization: 'Bearer sk_live_wrong' };

  const run = runner(prism);

  await run([
    { name: 'listOrders 200', method: 'GET', path: '/store/orders', headers: auth, expect: 200 },
    { name: 'listOrders 200 (none)', method: 'GET', path: '/store/orders', headers: empty.auth, expect: 200 },
    { name: 'listOrders 401', method: 'GET', path: '/store/orders', headers: wrongKey, expect: 401 },
    { name: 'cancelOrder 204', method: 'DELETE', path: `/store/orders/${pending.id}`, headers: auth, expect: 204 },
    { name: 'cancelOrder 404 (now cancelled)', method: 'DELETE', path: `/store/orders/${pending.id}`, headers: auth, expect: 404 },
    { name: "cancelOrder 404 (another account's)", method: 'DELETE', path: `/store/orders/${shipped.id}`, headers: empty.auth, expect: 404 },
    { name: 'cancelOrder 409', method: 'DELETE', path: `/store/orders/${shipped.id}`, headers: auth, expect: 409 },
    { name: 'cancelOrder 400 (orderId)', method: 'DELETE', path: '/store/orders/9223372036854775808', headers: auth, expect: 400 },
    { name: 'cancelOrder 400 (body)', method: 'DELETE', path: `/store/orders/${shipped.id}`, headers: { ...auth, 'content-type': 'application/xml' }, body: '<a/>', expect: 400 },
    { name: 'cancelOrder 401', method: 'DELETE', path: `/store/orders/${shipped.id}`, headers: wrongKey, expect: 401 },
    { name: 'getPet 200', method: 'GET', path: `/pets/${pet.id}`, headers: auth, expect: 200 },
    { name: 'getPet 404', method: 'GET', path: `/pets/${pet.id}`, headers: empty.auth, expect: 404 },
    { name: 'getPet 400', method: 'GET', path: '/pets/007', headers: auth, expect: 400 },
    { name: 'getPet 401', method: 'GET', path: `/pets/${pet.id}`, headers: wrongKey, expect: 401 },
  ]);

  const etag = (await send(`${prism}/store/orders`, { name: 'etag', method: 'GET', path: '/store/orders', headers: auth, expect: 200 })).headers.etag;
  assert.equal(typeof etag, 'string');
  await run([{ name: 'listOrders 304', method: 'GET', path: '/store/orders', headers: { ...auth, 'if-none-match': String(etag) }, expect: 304 }]);

  now = new Date('2027-07-01T00:00:00Z');
  await run([{ name: 'getPet 410 (after sunset)', method: 'GET', path: `/pets/${pet.id}`, headers: auth, expect: 410 }]);

  // A schema another process broke (a table and a column gone) is a real internal fault: 500.
  if (database.kind !== 'sqlite') throw new Error('this test drives a SQLite file');
  const intruder = new Database(database.path);
  intruder.exec('DROP TABLE orders; ALTER TABLE accounts DROP COLUMN orders_version');
  intruder.close();
  await run([
    { name: 'listOrders 500', method: 'GET', path: '/store/orders', headers: auth, expect: 500 },
    { name: 'cancelOrder 500', method: 'DELETE', path: `/store/orders/${shipped.id}`, headers: auth, expect: 500 },
  ]);

  // A database that cannot answer is retryable: 503 with Retry-After.
  await storage.close();
  await run([
    { name: 'listOrders 503', method: 'GET', path: '/store/orders', headers: auth, expect: 503 },
    { name: 'cancelOrder 503', method: 'DELETE', path: `/store/orders/${shipped.id}`, headers: auth, expect: 503 },
  ]);
});

test('when real requests for every documented v2 status go through Prism validating against openapi-v2.json, then no response violates it', async (t) => {
  const limits: Limits = { ...TEST_LIMITS, rateLimit: { requests: 50, windowSeconds: 3600 } };
  const { app, services, storage, database, tenant } = await createTestApp(t, sqliteBackend, { limits });
  // The v2 document's servers end in /v2 and its paths do not.
  const origin = await app.listen({ host: '127.0.0.1', port: 0 });
  const prism = await startPrism(t, `${origin}/v2`, 'openapi/openapi-v2.json');
  const run = runner(prism);

  const { account, auth } = await tenant();
  const empty = await tenant();
  const readOnly = { authorization: `Bearer ${(await services.apiKeys.createKey({ accountId: account.id, scopes: ['orders:read'] })).secret}` };
  const writeOnly = { authorization: `Bearer ${(await services.apiKeys.createKey({ accountId: account.id, scopes: ['orders:write'] })).secret}` };
  const burnt = { authorization: `Bearer ${(await services.apiKeys.createKey({ accountId: account.id })).secret}` };
  // Prism, being JavaScript, checks int64 against 2^53 - 1; exactness above it is tested without Prism.
  const max = 9007199254740991n;
  await services.orderOperations.createOrder({ accountId: account.id, id: max, petId: max, quantity: 2147483647, shipDate: '2026-12-01T10:00:00+01:00', complete: true });
  await services.orderOperations.createOrder({ accountId: account.id, id: 1n, petId: 5n, quantity: 1, shipDate: '2026-12-02T10:00:00Z' });
  await services.orderOperations.createOrder({ accountId: account.id, id: 2n, petId: 5n, quantity: 3, shipDate: '2026-12-03T10:00:00Z' });
  await services.orderOperations.createOrder({ accountId: account.id, id: 3n, petId: 5n, quantity: 1 });
  await services.orderOperations.createOrder({ accountId: account.id, id: 4n, petId: 6n, quantity: 1 });
  await services.orderOperations.shipOrder(2n);
  await services.orders.cancelOrder(account.id, 3n);
  const wrongKey = { authorization: 'Bearer sk_live_wrong' };

  const filtered = '/store/orders?status=pending&status=shipped&petId=5&complete=false&shipDateFrom=2026-12-01T00:00:00Z&shipDateTo=2027-01-01T00:00:00Z&limit=1';
  const [first] = await run([{ name: 'listOrdersV2 200 (filtered, first page)', method: 'GET', path: filtered, headers: auth, expect: 200 }]);
  const page = JSON.parse(first?.body ?? '') as { data: { id: number }[]; nextCursor: string | null };
  assert.deepEqual(page.data.map((o) => o.id), [1]);
  assert.equal(typeof page.nextCursor, 'string');
  assert.match(String(first?.headers.link), /; rel="next"$/);
  const cursor = encodeURIComponent(String(page.nextCursor));
  const etag = String(first?.headers.etag);

  await run([
    { name: 'listOrdersV2 200 (all, cancelled included)', method: 'GET', path: '/store/orders', headers: auth, expect: 200 },
    { name: 'listOrdersV2 200 (next page)', method: 'GET', path: `${filtered}&cursor=${cursor}`, headers: auth, expect: 200 },
    { name: 'listOrdersV2 200 (none)', method: 'GET', path: '/store/orders', headers: empty.auth, expect: 200 },
    { name: 'listOrdersV2 304', method: 'GET', path: filtered, headers: { ...auth, 'if-none-match': etag }, expect: 304 },
    { name: 'listOrdersV2 400 (limit)', method: 'GET', path: '/store/orders?limit=501', headers: auth, expect: 400 },
    { name: 'listOrdersV2 400 (unknown parameter)', method: 'GET', path: '/store/orders?sort=id', headers: auth, expect: 400 },
    { name: 'listOrdersV2 400 (status)', method: 'GET', path: '/store/orders?status=lost', headers: auth, expect: 400 },
    { name: 'listOrdersV2 400 (cursor of other filters)', method: 'GET', path: `/store/orders?cursor=${cursor}`, headers: auth, expect: 400 },
    { name: "listOrdersV2 400 (another account's cursor)", method: 'GET', path: `${filtered}&cursor=${cursor}`, headers: empty.auth, expect: 400 },
    { name: 'listOrdersV2 401', method: 'GET', path: '/store/orders', headers: wrongKey, expect: 401 },
    { name: 'listOrdersV2 403', method: 'GET', path: '/store/orders', headers: writeOnly, expect: 403 },
    { name: 'getOrderV2 200', method: 'GET', path: `/store/orders/${max}`, headers: auth, expect: 200 },
    { name: 'getOrderV2 200 (cancelled)', method: 'GET', path: '/store/orders/3', headers: auth, expect: 200 },
    { name: "getOrderV2 404 (another account's)", method: 'GET', path: '/store/orders/1', headers: empty.auth, expect: 404 },
    { name: 'getOrderV2 400', method: 'GET', path: '/store/orders/01', headers: auth, expect: 400 },
    { name: 'getOrderV2 401', method: 'GET', path: '/store/orders/1', headers: wrongKey, expect: 401 },
    { name: 'getOrderV2 403', method: 'GET', path: '/store/orders/1', headers: writeOnly, expect: 403 },
    { name: 'cancelOrderV2 204', method: 'DELETE', path: '/store/orders/4', headers: auth, expect: 204 },
    { name: 'cancelOrderV2 409 (already cancelled)', method: 'DELETE', path: '/store/orders/4', headers: auth, expect: 409 },
    { name: 'cancelOrderV2 409 (shipped)', method: 'DELETE', path: '/store/orders/2', headers: auth, expect: 409 },
    { name: 'cancelOrderV2 404', method: 'DELETE', path: '/store/orders/404', headers: auth, expect: 404 },
    { name: 'cancelOrderV2 400 (orderId)', method: 'DELETE', path: '/store/orders/9223372036854775808', headers: auth, expect: 400 },
    { name: 'cancelOrderV2 400 (body)', method: 'DELETE', path: '/store/orders/1', headers: { ...auth, 'content-type': 'application/xml' }, body: '<a/>', expect: 400 },
    { name: 'cancelOrderV2 401', method: 'DELETE', path: '/store/orders/1', headers: wrongKey, expect: 401 },
    { name: 'cancelOrderV2 403', method: 'DELETE', path: '/store/orders/1', headers: readOnly, expect: 403 },
  ]);

  // The events the changes above committed: the feed and one event.
  const [events] = await run([{ name: 'listEvents 200 (first page)', method: 'GET', path: '/events?limit=3', headers: auth, expect: 200 }]);
  const feed = JSON.parse(events?.body ?? '') as { data: { id: string }[]; nextCursor: string };
  assert.equal(feed.data.length, 3);
  const eventsCursor = encodeURIComponent(feed.nextCursor);
  const eventId = feed.data[0]?.id ?? '';
  await run([
    { name: 'listEvents 200 (next page)', method: 'GET', path: `/events?limit=3&cursor=${eventsCursor}`, headers: auth, expect: 200 },
    { name: 'listEvents 200 (filtered)', method: 'GET', path: '/events?type=order.cancelled&type=order.shipped&createdFrom=2000-01-01T00:00:00Z', headers: auth, expect: 200 },
    { name: 'listEvents 200 (none)', method: 'GET', path: '/events', headers: empty.auth, expect: 200 },
    { name: 'listEvents 400 (limit)', method: 'GET', path: '/events?limit=0', headers: auth, expect: 400 },
    { name: 'listEvents 400 (unknown parameter)', method: 'GET', path: '/events?status=pending', headers: auth, expect: 400 },
    { name: 'listEvents 400 (cursor of other filters)', method: 'GET', path: `/events?type=order.created&cursor=${eventsCursor}`, headers: auth, expect: 400 },
    { name: 'listEvents 401', method: 'GET', path: '/events', headers: wrongKey, expect: 401 },
    { name: 'listEvents 403', method: 'GET', path: '/events', headers: readOnly, expect: 403 },
    { name: 'getEvent 200', method: 'GET', path: `/events/${eventId}`, headers: auth, expect: 200 },
    { name: "getEvent 404 (another account's)", method: 'GET', path: `/events/${eventId}`, headers: empty.auth, expect: 404 },
    { name: 'getEvent 400', method: 'GET', path: `/events/evt_${'0'.repeat(61)}`, headers: auth, expect: 400 },
    { name: 'getEvent 401', method: 'GET', path: `/events/${eventId}`, headers: wrongKey, expect: 401 },
    { name: 'getEvent 403', method: 'GET', path: `/events/${eventId}`, headers: readOnly, expect: 403 },
  ]);

  // A key that has spent its budget (sent straight to the server, not through Prism).
  for (let i = 0; i < limits.rateLimit.requests; i++) await app.inject({ method: 'GET', url: '/v2/store/orders/1', headers: burnt });
  await run([
    { name: 'listOrdersV2 429', method: 'GET', path: '/store/orders', headers: burnt, expect: 429 },
    { name: 'getOrderV2 429', method: 'GET', path: '/store/orders/1', headers: burnt, expect: 429 },
    { name: 'cancelOrderV2 429', method: 'DELETE', path: '/store/orders/1', headers: burnt, expect: 429 },
    { name: 'listEvents 429', method: 'GET', path: '/events', headers: burnt, expect: 429 },
    { name: 'getEvent 429', method: 'GET', path: '/events/evt_00000000000000000000000000000000', headers: burnt, expect: 429 },
  ]);

  if (database.kind !== 'sqlite') throw new Error('this test drives a SQLite file');
  const intruder = new Database(database.path);
  intruder.exec('DROP TABLE orders; DROP TABLE events');
  intruder.close();
  await run([
    { name: 'listOrdersV2 500', method: 'GET', path: '/store/orders', headers: auth, expect: 500 },
    { name: 'getOrderV2 500', method: 'GET', path: '/store/orders/1', headers: auth, expect: 500 },
    { name: 'cancelOrderV2 500', method: 'DELETE', path: '/store/orders/1', headers: auth, expect: 500 },
    { name: 'listEvents 500', method: 'GET', path: '/events', headers: auth, expect: 500 },
    { name: 'getEvent 500', method: 'GET', path: `/events/${eventId}`, headers: auth, expect: 500 },
  ]);

  await storage.close();
  await run([
    { name: 'listOrdersV2 503', method: 'GET', path: '/store/orders', headers: auth, expect: 503 },
    { name: 'getOrderV2 503', method: 'GET', path: '/store/orders/1', headers: auth, expect: 503 },
    { name: 'cancelOrderV2 503', method: 'DELETE', path: '/store/orders/1', headers: auth, expect: 503 },
    { name: 'listEvents 503', method: 'GET', path: '/events', headers: auth, expect: 503 },
    { name: 'getEvent 503', method: 'GET', path: '/events/evt_00000000000000000000000000000000', headers: auth, expect: 503 },
  ]);
});
