import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { connect } from 'node:net';
import { test, type TestContext } from 'node:test';
import { OPENAPI_FILE, OPENAPI_V2_FILE, QUICKSTART_OPENAPI_FILE } from '../../scripts/contract-files.js';
import type { Limits } from '../../src/config/limits.js';
import { createTestApp } from '../support/app.js';
import { testConfig } from '../support/container.js';
import { createTenant, createTestQuickstartApp } from '../support/quickstart.js';
import { sqliteBackend } from '../support/storage.js';

interface Document {
  servers: { url: string }[];
  paths: Record<string, Record<string, { operationId: string; responses: Record<string, { headers?: Record<string, unknown> }> }>>;
}

const read = (file: string) => JSON.parse(readFileSync(new URL(`../../${file}`, import.meta.url), 'utf8')) as Document;

/**
 * Framing, not content: Content-Type is described by each response's
 * `content` (OpenAPI 3.1 §4.8.17.1: a Content-Type header is ignored), and
 * the rest belong to the connection, not to the operation.
 */
const FRAMING = new Set(['content-type', 'content-length', 'date', 'connection', 'keep-alive', 'transfer-encoding']);

/** Small timeouts, so a slow client gets its 408 quickly; a quota of 5 per key or address, so 429 comes early. */
const LIMITS: Limits = (() => {
  const base = testConfig({ HEADERS_TIMEOUT_MS: '300', REQUEST_TIMEOUT_MS: '600' }).limits;
  return { ...base, rateLimit: { requests: 5, windowSeconds: 60 } };
})();

interface Sent {
  status: number;
  headers: string[];
}

/** One request over node:http: the header names exactly as they arrived. */
function send(origin: string, method: string, path: string, headers: Record<string, string> = {}, body?: string): Promise<Sent> {
  return new Promise((resolve, reject) => {
    const lengths = body === undefined ? {} : { 'content-length': String(Buffer.byteLength(body)) };
    const req = request(`${origin}${path}`, { method, headers: { ...headers, ...lengths } }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: headerNames(res.rawHeaders) }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

function headerNames(raw: readonly string[]): string[] {
  return raw.filter((_, i) => i % 2 === 0).map((name) => name.toLowerCase());
}

/** What Node's parser answers itself: headers too large (431), or too slow (408). Raw sockets: a client cannot do either otherwise. */
async function sendRaw(origin: string, head: string, waitForTimeout: boolean): Promise<Sent> {
  const { hostname, port } = new URL(origin);
  const socket = connect(Number(port), hostname);
  socket.write(head);
  if (!waitForTimeout) socket.write('\r\n');
  let text = '';
  for await (const chunk of socket) text += String(chunk);
  const [statusLine = '', ...lines] = text.split('\r\n\r\n')[0]?.split('\r\n') ?? [];
  return { status: Number(statusLine.split(' ')[1]), headers: lines.map((line) => line.slice(0, line.indexOf(':')).toLowerCase()) };
}

type Observed = Map<string, Map<string, Set<string>>>;

function observe(observed: Observed, operationId: string, sent: Sent): void {
  const byStatus = observed.get(operationId) ?? new Map<string, Set<string>>();
  observed.set(operationId, byStatus);
  const names = byStatus.get(String(sent.status)) ?? new Set<string>();
  byStatus.set(String(sent.status), names);
  for (const name of sent.headers) if (!FRAMING.has(name)) names.add(name);
}

/**
 * Every (operation, status) the test produced: the headers sent must be
 * exactly the headers declared, both ways. Statuses the test cannot produce
 * (500, 503) are left out, and so are operations it did not call.
 */
function assertDeclared(document: Document, observed: Observed): void {
  const problems: string[] = [];
  for (const item of Object.values(document.paths)) {
    for (const operation of Object.values(item)) {
      const byStatus = observed.get(operation.operationId);
      if (byStatus === undefined) continue;
      for (const [status, sent] of byStatus) {
        const response = operation.responses[status];
        if (response === undefined) {
          problems.push(`${operation.operationId} ${status}: sent but not documented`);
          continue;
        }
        const declared = new Set(Object.keys(response.headers ?? {}).map((name) => name.toLowerCase()));
        const undeclared = [...sent].filter((name) => !declared.has(name)).sort();
        const unsent = [...declared].filter((name) => !sent.has(name)).sort();
        if (undeclared.length > 0) problems.push(`${operation.operationId} ${status}: sent but not declared: ${undeclared.join(', ')}`);
        if (unsent.length > 0) problems.push(`${operation.operationId} ${status}: declared but never sent: ${unsent.join(', ')}`);
      }
    }
  }
  assert.deepEqual(problems, []);
}

/** A 408 (slow headers) and a 431 (headers too large) on `path`, and a 413 when `method` reads a body. */
async function transportErrors(origin: string, observed: Observed, operationId: string, method: string, path: string, auth: Record<string, string>): Promise<void> {
  observe(observed, operationId, await sendRaw(origin, `${method} ${path} HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n`, false));
  observe(observed, operationId, await sendRaw(origin, `${method} ${path} HTTP/1.1\r\nHost: x\r\n`, true));
  if (method !== 'GET') {
    observe(observed, operationId, await send(origin, method, path, { ...auth, 'content-type': 'text/plain' }, 'x'.repeat(1024 * 1024 + 1)));
  }
}

/** Spends `key`'s quota (or the address's, without one) and records the 429. */
async function exhaust(origin: string, observed: Observed, operationId: string, method: string, path: string, headers: Record<string, string>): Promise<void> {
  for (;;) {
    const sent = await send(origin, method, path, headers);
    if (sent.status === 429) {
      observe(observed, operationId, sent);
      return;
    }
  }
}

async function storeHost(t: TestContext) {
  const testApp = await createTestApp(t, sqliteBackend, { limits: LIMITS });
  const origin = await testApp.app.listen({ host: '127.0.0.1', port: 0 });
  return { ...testApp, origin };
}

test('when each v1 operation answers every status a test can produce, then the headers it sends are exactly the headers the document declares for that status', async (t) => {
  const { origin, services, tenant } = await storeHost(t);
  const observed: Observed = new Map();
  const fresh = async (scopes?: Parameters<typeof createTenant>[2]) => {
    const made = await (scopes === undefined ? tenant() : createTenant(services, 'Scoped', scopes));
    return made;
  };

  // listOrders: 200, 304, 401, 403, 429, 408, 431.
  let { account, auth } = await fresh();
  await services.orderOperations.createOrder({ accountId: account.id, id: 1n, petId: 1n, quantity: 1 });
  const listed = await send(origin, 'GET', '/v1/store/orders', auth);
  observe(observed, 'listOrders', listed);
  const etag = (await fetch(`${origin}/v1/store/orders`, { headers: auth })).headers.get('etag') ?? '';
  observe(observed, 'listOrders', await send(origin, 'GET', '/v1/store/orders', { ...auth, 'if-none-match': etag }));
  observe(observed, 'listOrders', await send(origin, 'GET', '/v1/store/orders', { authorization: 'Bearer so_prod_nope' }));
  observe(observed, 'listOrders', await send(origin, 'GET', '/v1/store/orders', (await fresh(['pets:read'])).auth));
  await exhaust(origin, observed, 'listOrders', 'GET', '/v1/store/orders', (await fresh()).auth);
  await transportErrors(origin, observed, 'listOrders', 'GET', '/v1/store/orders', auth);

  // cancelOrder: 204, 400, 401, 403, 404, 409, 413, 429, 408, 431.
  ({ account, auth } = await fresh());
  await services.orderOperations.createOrder({ accountId: account.id, id: 2n, petId: 1n, quantity: 1 });
  await services.orderOperations.createOrder({ accountId: account.id, id: 3n, petId: 1n, quantity: 1 });
  await services.orderOperations.shipOrder(3n);
  observe(observed, 'cancelOrder', await send(origin, 'DELETE', '/v1/store/orders/2', auth));
  observe(observed, 'cancelOrder', await send(origin, 'DELETE', '/v1/store/orders/3', auth));
  ({ auth } = await fresh());
  observe(observed, 'cancelOrder', await send(origin, 'DELETE', '/v1/store/orders/x', auth));
  observe(observed, 'cancelOrder', await send(origin, 'DELETE', '/v1/store/orders/404', auth));
  observe(observed, 'cancelOrder', await send(origin, 'DELETE', '/v1/store/orders/2'));
  observe(observed, 'cancelOrder', await send(origin, 'DELETE', '/v1/store/orders/2', (await fresh(['orders:read'])).auth));
  await transportErrors(origin, observed, 'cancelOrder', 'DELETE', '/v1/store/orders/2', (await fresh()).auth);
  await exhaust(origin, observed, 'cancelOrder', 'DELETE', '/v1/store/orders/2', (await fresh()).auth);

  // getPet: 200, 400, 401, 403, 404, 429, 408, 431 (410 after the sunset: pets-http.test.ts).
  ({ account, auth } = await fresh(['pets:read']));
  const pet = await services.pets.createPet({ accountId: account.id, name: 'Rex' });
  observe(observed, 'getPet', await send(origin, 'GET', `/v1/pets/${pet.id}`, auth));
  observe(observed, 'getPet', await send(origin, 'GET', '/v1/pets/x', auth));
  observe(observed, 'getPet', await send(origin, 'GET', '/v1/pets/404', auth));
  observe(observed, 'getPet', await send(origin, 'GET', '/v1/pets/1', { authorization: 'Bearer so_prod_nope' }));
  observe(observed, 'getPet', await send(origin, 'GET', '/v1/pets/1', (await fresh(['orders:read'])).auth));
  await exhaust(origin, observed, 'getPet', 'GET', '/v1/pets/1', (await fresh(['pets:read'])).auth);
  await transportErrors(origin, observed, 'getPet', 'GET', '/v1/pets/1', auth);

  assertDeclared(read(OPENAPI_FILE), observed);
  assert.deepEqual([...(observed.get('cancelOrder')?.keys() ?? [])].sort(), ['204', '400', '401', '403', '404', '408', '409', '413', '429', '431']);
});

test('when each v2 (beta) operation answers every status a test can produce, then the headers it sends are exactly the headers the document declares for that status', async (t) => {
  const { origin, services, tenant } = await storeHost(t);
  const observed: Observed = new Map();
  const scoped = async (scopes: Parameters<typeof createTenant>[2]) => (await createTenant(services, 'Scoped', scopes)).auth;

  // listOrdersV2: 200 (with Link: another page follows), 304, 400, 401, 403, 429, 408, 431.
  let { account, auth } = await tenant();
  for (const id of [1n, 2n]) await services.orderOperations.createOrder({ accountId: account.id, id, petId: 1n, quantity: 1 });
  observe(observed, 'listOrdersV2', await send(origin, 'GET', '/v2/store/orders?limit=1', auth));
  const etag = (await fetch(`${origin}/v2/store/orders`, { headers: auth })).headers.get('etag') ?? '';
  observe(observed, 'listOrdersV2', await send(origin, 'GET', '/v2/store/orders', { ...auth, 'if-none-match': etag }));
  observe(observed, 'listOrdersV2', await send(origin, 'GET', '/v2/store/orders?limit=0', auth));
  observe(observed, 'listOrdersV2', await send(origin, 'GET', '/v2/store/orders', { authorization: 'Bearer so_prod_nope' }));
  observe(observed, 'listOrdersV2', await send(origin, 'GET', '/v2/store/orders', await scoped(['pets:read'])));
  await exhaust(origin, observed, 'listOrdersV2', 'GET', '/v2/store/orders', (await tenant()).auth);
  await transportErrors(origin, observed, 'listOrdersV2', 'GET', '/v2/store/orders', auth);

  // getOrderV2: 200, 400, 404, 401, 403, 408, 431.
  ({ account, auth } = await tenant());
  await services.orderOperations.createOrder({ accountId: account.id, id: 10n, petId: 1n, quantity: 1 });
  observe(observed, 'getOrderV2', await send(origin, 'GET', '/v2/store/orders/10', auth));
  observe(observed, 'getOrderV2', await send(origin, 'GET', '/v2/store/orders/x', auth));
  observe(observed, 'getOrderV2', await send(origin, 'GET', '/v2/store/orders/404', auth));
  observe(observed, 'getOrderV2', await send(origin, 'GET', '/v2/store/orders/10', { authorization: 'Bearer so_prod_nope' }));
  observe(observed, 'getOrderV2', await send(origin, 'GET', '/v2/store/orders/10', await scoped(['pets:read'])));
  await transportErrors(origin, observed, 'getOrderV2', 'GET', '/v2/store/orders/10', auth);

  // cancelOrderV2: 204, 409, 400, 404, 401, 403, 413, 408, 431.
  ({ account, auth } = await tenant());
  await services.orderOperations.createOrder({ accountId: account.id, id: 20n, petId: 1n, quantity: 1 });
  observe(observed, 'cancelOrderV2', await send(origin, 'DELETE', '/v2/store/orders/20', auth));
  observe(observed, 'cancelOrderV2', await send(origin, 'DELETE', '/v2/store/orders/20', auth));
  observe(observed, 'cancelOrderV2', await send(origin, 'DELETE', '/v2/store/orders/x', auth));
  observe(observed, 'cancelOrderV2', await send(origin, 'DELETE', '/v2/store/orders/404', auth));
  observe(observed, 'cancelOrderV2', await send(origin, 'DELETE', '/v2/store/orders/20', await scoped(['orders:read'])));
  observe(observed, 'cancelOrderV2', await send(origin, 'DELETE', '/v2/store/orders/20', { authorization: 'Bearer so_prod_nope' }));
  await transportErrors(origin, observed, 'cancelOrderV2', 'DELETE', '/v2/store/orders/20', (await tenant()).auth);

  assertDeclared(read(OPENAPI_V2_FILE), observed);
  assert.ok(observed.get('listOrdersV2')?.get('200')?.has('link'), 'the first of two pages carries Link');
  assert.deepEqual([...(observed.get('cancelOrderV2')?.keys() ?? [])].sort(), ['204', '400', '401', '403', '404', '408', '409', '413', '431']);
});

test('when each quickstart operation answers every status a test can produce, then the headers it sends are exactly the headers the document declares for that status', async (t) => {
  const { app, services } = await createTestQuickstartApp(t, sqliteBackend, { limits: LIMITS });
  const origin = await app.listen({ host: '127.0.0.1', port: 0 });
  const observed: Observed = new Map();
  const json = { 'content-type': 'application/json' };

  // sendMessage: 202 (and its replay), 400, 422, 413, 401, 403, 429, 408, 431.
  let { auth } = await createTenant(services, 'Sender');
  const idempotent = { ...auth, ...json, 'idempotency-key': 'k-1' };
  observe(observed, 'sendMessage', await send(origin, 'POST', '/messages', idempotent, '{"message":"Hello"}'));
  observe(observed, 'sendMessage', await send(origin, 'POST', '/messages', idempotent, '{"message":"Hello"}'));
  observe(observed, 'sendMessage', await send(origin, 'POST', '/messages', idempotent, '{"message":"Other"}'));
  observe(observed, 'sendMessage', await send(origin, 'POST', '/messages', { ...auth, ...json }, '{}'));
  observe(observed, 'sendMessage', await send(origin, 'POST', '/messages', { ...json, authorization: 'Bearer so_prod_nope' }, '{"message":"Hello"}'));
  observe(observed, 'sendMessage', await send(origin, 'POST', '/messages', { ...json, ...(await createTenant(services, 'Reader', ['orders:read'])).auth }, '{"message":"Hello"}'));
  observe(observed, 'sendMessage', await send(origin, 'POST', '/messages', { ...(await createTenant(services, 'Big')).auth, ...json }, `{"message":"${'x'.repeat(70_000)}"}`));
  await exhaust(origin, observed, 'getMessage', 'GET', '/messages/nothing', (await createTenant(services, 'Busy')).auth);
  await transportErrors(origin, observed, 'sendMessage', 'POST', '/messages', auth);

  // getMessage: 200, 404, 401, 403, 408, 431.
  ({ auth } = await createTenant(services, 'Getter'));
  const { id } = (await (await fetch(`${origin}/messages`, { method: 'POST', headers: { ...auth, ...json }, body: '{"message":"Hi"}' })).json()) as { id: string };
  observe(observed, 'getMessage', await send(origin, 'GET', `/messages/${id}`, auth));
  observe(observed, 'getMessage', await send(origin, 'GET', '/messages/nothing', auth));
  observe(observed, 'getMessage', await send(origin, 'GET', `/messages/${id}`, { authorization: 'Bearer so_prod_nope' }));
  observe(observed, 'getMessage', await send(origin, 'GET', `/messages/${id}`, (await createTenant(services, 'Reader 2', ['orders:read'])).auth));
  await transportErrors(origin, observed, 'getMessage', 'GET', `/messages/${id}`, auth);

  assertDeclared(read(QUICKSTART_OPENAPI_FILE), observed);
  assert.ok(observed.get('sendMessage')?.get('202')?.has('idempotent-replayed'), 'the replayed 202 carries Idempotent-Replayed');
  assert.deepEqual([...(observed.get('sendMessage')?.keys() ?? [])].sort(), ['202', '400', '401', '403', '408', '413', '422', '431']);
  assert.deepEqual([...(observed.get('getMessage')?.keys() ?? [])].sort(), ['200', '401', '403', '404', '408', '429', '431']);
});
