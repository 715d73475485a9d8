import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test, type TestContext } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { routeTable } from '../../src/http/route-table.js';
import { createTestApp } from '../support/app.js';
import { testConfig } from '../support/container.js';
import { createTestQuickstartApp } from '../support/quickstart.js';
import { listenLocal, parseResponse, sendRaw, type RawResponse } from '../support/raw-http.js';
import { httpBackends } from '../support/storage.js';

/*
 * How requests are framed on the wire (issue 19 #4, #6, #7), through real
 * sockets so that the v1 listing's fast lane (in front of Fastify) is
 * exercised as well as the routes.
 */

const TEST_LIMITS = testConfig().limits;
const NO_RATE_LIMIT = { ...TEST_LIMITS, rateLimit: { requests: 0, windowSeconds: 60 } };

const backend = httpBackends()[0];
assert.ok(backend);

/** Every response on a connection, in the order received (the server closes it). */
function responsesOf(raw: RawResponse): RawResponse[] {
  const all: RawResponse[] = [];
  let rest = raw.raw;
  while (rest.length > 0) {
    const response = parseResponse(rest);
    // 204 and 304 carry no body and no Content-Length: what follows their head is the next response.
    const bodiless = response.statusCode === 204 || response.statusCode === 304;
    const next = bodiless ? rest.slice(rest.indexOf('\r\n\r\n') + 4) : response.trailing;
    all.push(bodiless ? { ...response, body: '', trailing: next } : response);
    rest = next;
  }
  return all;
}

/** `head`: the answer to a HEAD request, whose record is not sent. */
function assertErrorRecord(response: RawResponse | undefined, status: number, code: string, head = false): void {
  assert.ok(response, 'a response was expected');
  assert.equal(response.statusCode, status, response.raw);
  assert.match(response.headers['content-type'] ?? '', /^application\/json/);
  if (head) return;
  const record = JSON.parse(response.body) as Record<string, unknown>;
  assert.deepEqual(Object.keys(record).sort(), ['code', 'message', 'status']);
  assert.equal(record.code, code);
  assert.equal(record.status, status);
}

/** Two Content-Length headers that disagree: Node's parser refuses the request (RFC 9112 §6.3). */
const MALFORMED = 'POST /v1/store/orders HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab';

async function store(t: TestContext) {
  assert.ok(backend);
  const testApp = await createTestApp(t, backend, { limits: NO_RATE_LIMIT });
  const { account, key } = await testApp.tenant();
  const orders = [];
  for (let i = 0; i < 2; i++) orders.push(await testApp.services.orderOperations.createOrder({ accountId: account.id, petId: 1n, quantity: 1 }));
  const port = await listenLocal(testApp.app);
  return { ...testApp, account, key, orders, port };
}

/** Every operation of a host, once per method, with `:param` filled with `id` (no wildcard routes). */
type Paths = Record<string, Record<string, { requestBody?: unknown }>>;

/** "METHOD /prefix/route/:param" of every operation whose published document declares a request body. */
const OPERATIONS_WITH_BODY = new Set(
  (
    [
      ['/v1', 'openapi.json'],
      ['/v2', 'openapi-v2.json'],
      ['', 'quickstart-openapi.json'],
    ] as const
  ).flatMap(([prefix, file]) =>
    Object.entries((JSON.parse(readFileSync(new URL(`../../openapi/${file}`, import.meta.url), 'utf8')) as { paths: Paths }).paths).flatMap(([path, methods]) =>
      Object.entries(methods)
        .filter(([, operation]) => operation.requestBody !== undefined)
        .map(([method]) => `${method.toUpperCase()} ${prefix}${path.replace(/\{(\w+)\}/g, ':$1')}`),
    ),
  ),
);

/** Every operation of `app` that takes no request body (its document declares none), with `id` for its path parameters. */
function operations(app: FastifyInstance, id: string): [string, string][] {
  return routeTable(app)
    .filter((route) => !route.url.includes('*'))
    .flatMap((route) =>
      route.methods.filter((method) => !OPERATIONS_WITH_BODY.has(`${method} ${route.url}`)).map((method): [string, string] => [method, route.url.replace(/:[A-Za-z]+/g, id)]),
    );
}

describe('pipelined requests followed by a malformed one (RFC 9112 §9.3.2)', () => {
  test('when two cancels and then a request with two Content-Length headers arrive in one write, then 204, 204, the 400 Error record, then the close', async (t) => {
    const { key, orders, port, services, account } = await store(t);
    const cancel = (id: bigint) => `DELETE /v1/store/orders/${id} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\n\r\n`;
    const [first, second] = orders;
    assert.ok(first && second);
    const responses = responsesOf(await sendRaw(port, cancel(first.id) + cancel(second.id) + MALFORMED));
    assert.deepEqual(
      responses.map((response) => response.statusCode),
      [204, 204, 400],
    );
    assertErrorRecord(responses[2], 400, 'malformed_request');
    assert.equal(responses[2]?.headers.connection, 'close');
    const left = await services.orderOperations.listAllOrders(account.id);
    assert.ok(left.every((order) => order.status === 'cancelled'));
  });

  test('when two listings (the fast lane) and then a malformed request arrive in one write, then 200, 200, the 400, then the close', async (t) => {
    const { key, port } = await store(t);
    const list = `GET /v1/store/orders HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\n\r\n`;
    // Warm: the next listings are answered from memory by the lane.
    assert.equal((await sendRaw(port, list.replace('\r\n\r\n', '\r\nConnection: close\r\n\r\n'))).statusCode, 200);
    const responses = responsesOf(await sendRaw(port, list + list + MALFORMED));
    assert.deepEqual(
      responses.map((response) => response.statusCode),
      [200, 200, 400],
    );
    assert.equal(JSON.parse(responses[0]?.body ?? '').length, 2);
    assertErrorRecord(responses[2], 400, 'malformed_request');
  });

  test('when a malformed request comes alone, then its 400 is written at once', async (t) => {
    const { port } = await store(t);
    const responses = responsesOf(await sendRaw(port, MALFORMED));
    assert.equal(responses.length, 1);
    assertErrorRecord(responses[0], 400, 'malformed_request');
  });
});

describe('two Host headers (RFC 9112 §3.2)', () => {
  test('when a request carries two Host headers, same or different, then every route of both hosts answers 400 malformed_request and does nothing', async (t) => {
    const { app, key, orders, port, services, account } = await store(t);
    const quickstart = await createTestQuickstartApp(t, backend, { limits: NO_RATE_LIMIT });
    const quickstartPort = await listenLocal(quickstart.app);
    const [order] = orders;
    assert.ok(order);
    const targets: [number, string, string][] = [
      ...operations(app, String(order.id)).map(([method, url]): [number, string, string] => [port, method, url]),
      ...operations(quickstart.app, '1').map(([method, url]): [number, string, string] => [quickstartPort, method, url]),
    ];
    assert.ok(targets.some(([, method, url]) => method === 'GET' && url === '/v1/store/orders'));
    for (const hosts of [['x', 'x'], ['x', 'y']]) {
      for (const [target, method, url] of targets) {
        const head = `${method} ${url} HTTP/1.1\r\n${hosts.map((host) => `Host: ${host}\r\n`).join('')}Authorization: Bearer ${key}\r\nConnection: close\r\n\r\n`;
        const response = await sendRaw(target, head);
        assertErrorRecord(response, 400, 'malformed_request', method === 'HEAD');
        if (method !== 'HEAD') assert.match(response.body, /exactly one Host/);
      }
    }
    // One Host still works, on the fast lane too.
    const single = await sendRaw(port, `GET /v1/store/orders HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nConnection: close\r\n\r\n`);
    assert.equal(single.statusCode, 200);
    const all = await services.orderOperations.listAllOrders(account.id);
    assert.ok(all.every((each) => each.status === 'pending'));
  });
});

/** The bodies a client may attach, by Content-Type (undefined: none sent). */
const BODIES: [string | undefined, string][] = [
  ['text/plain', 'hello'],
  ['application/x-www-form-urlencoded', 'a=1'],
  ['application/json', '{}'],
  ['application/json; charset=utf-8', '{"a":1}'],
  ['multipart/form-data; boundary=b', '--b--\r\n'],
  ['application/octet-stream', 'x'],
  ['application/xml', '<a/>'],
  [undefined, 'x'],
];

describe('a request body sent to an operation that takes none', () => {
  test('when any operation that declares no request body gets one, whatever its Content-Type (or chunked), then 400 malformed_request and nothing is done', async (t) => {
    const { app, key, orders, port, services, account } = await store(t);
    const quickstart = await createTestQuickstartApp(t, backend, { limits: NO_RATE_LIMIT });
    const quickstartPort = await listenLocal(quickstart.app);
    const messagesKey = (await quickstart.tenant()).key;
    const [order] = orders;
    assert.ok(order);
    const targets: [number, string, string, string][] = [
      ...operations(app, String(order.id)).map(([method, url]): [number, string, string, string] => [port, method, url, key]),
      ...operations(quickstart.app, '1')
        .map(([method, url]): [number, string, string, string] => [quickstartPort, method, url, messagesKey]),
    ];
    assert.ok(targets.some(([, method]) => method === 'DELETE'));
    for (const [target, method, url, bearer] of targets) {
      const framings = [
        ...BODIES.map(([type, body]) => `${type === undefined ? '' : `Content-Type: ${type}\r\n`}Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`),
        'Content-Type: text/plain\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n',
      ];
      for (const framing of framings) {
        const response = await sendRaw(target, `${method} ${url} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${bearer}\r\nConnection: close\r\n${framing}`);
        assertErrorRecord(response, 400, 'malformed_request', method === 'HEAD');
        if (method !== 'HEAD') assert.match(response.body, /takes no request body/, `${method} ${url} ${framing}`);
      }
    }
    const all = await services.orderOperations.listAllOrders(account.id);
    assert.ok(all.every((each) => each.status === 'pending'), 'a DELETE with a body cancelled an order');
  });

  test('when the body is empty (Content-Length: 0), then the operation runs as without one', async (t) => {
    const { key, orders, port } = await store(t);
    const [order] = orders;
    assert.ok(order);
    const response = await sendRaw(port, `DELETE /v1/store/orders/${order.id} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nContent-Type: text/plain\r\nContent-Length: 0\r\nConnection: close\r\n\r\n`);
    assert.equal(response.statusCode, 204);
  });

  test('when the key is missing, then 401 comes before the body is judged', async (t) => {
    const { orders, port } = await store(t);
    const [order] = orders;
    assert.ok(order);
    const response = await sendRaw(port, `DELETE /v1/store/orders/${order.id} HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\nContent-Length: 5\r\nConnection: close\r\n\r\nhello`);
    assertErrorRecord(response, 401, 'missing_api_key');
  });
});
