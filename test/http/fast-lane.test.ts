import assert from 'node:assert/strict';
import http from 'node:http';
import { describe, test, type TestContext } from 'node:test';
import type { Services } from '../../src/services.js';
import type { Limits } from '../../src/config/limits.js';
import type { ListingResponses, OpenedListing } from '../../src/orders/listing/listing-responses.js';
import { openStorage } from '../../src/storage/open-storage.js';
import type { Storage } from '../../src/storage/storage.js';
import { buildTestStoreApp } from '../support/app.js';
import { listenLocal, openSocket, parseResponse } from '../support/raw-http.js';
import { httpBackends } from '../support/storage.js';
import { capturingLogger } from '../support/logs.js';
import { testConfig, testServices } from '../support/container.js';

/** The documented limits, as a process started without limit variables has them. */
const TEST_LIMITS: Limits = testConfig().limits;

interface Exchange {
  status: number;
  /** Name/value pairs in the order sent. */
  headers: [string, string][];
  body: string;
}

/** What the route and the lane do with the real listings, per request. */
interface Observed {
  opens: number;
  /** Reads of `cached`: only the lane reads it. */
  cachedReads: number;
  /** Calls of `body()`: only the route calls it. */
  bodyCalls: number;
}

/** The host's real listings, with what is done with the v1 listing counted. */
function observing(seen: Observed): (listings: ListingResponses) => ListingResponses {
  return (listings) => ({
    ...listings,
    openV1: async (accountId: number): Promise<OpenedListing> => {
      seen.opens++;
      const listing = await listings.openV1(accountId);
      return {
        validator: listing.validator,
        get cached() {
          seen.cachedReads++;
          return listing.cached;
        },
        body: () => {
          seen.bodyCalls++;
          return listing.body();
        },
      };
    },
  });
}

interface Host {
  port: number;
  agent: http.Agent;
  logs: string[];
  seen: Observed;
}

async function host(t: TestContext, services: Services, storage: Pick<Storage, 'ping'>, listingLane: boolean, limits: Limits): Promise<Host> {
  const { logger, logs } = capturingLogger('info');
  const seen: Observed = { opens: 0, cachedReads: 0, bodyCalls: 0 };
  const app = await buildTestStoreApp({ logger, services, storage, config: { ...testConfig(), limits }, fastLane: listingLane, observe: observing(seen) });
  t.after(() => app.close());
  const agent = new http.Agent({ keepAlive: true });
  t.after(() => agent.destroy());
  return { port: await listenLocal(app), agent, logs, seen };
}

interface Request {
  method?: string;
  path?: string;
  headers?: http.OutgoingHttpHeaders;
  body?: string;
}

function send({ port, agent }: Host, { method = 'GET', path = '/v1/store/orders', headers = {}, body }: Request): Promise<Exchange> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, method, path, headers, agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const headers: [string, string][] = [];
        for (let i = 0; i + 1 < res.rawHeaders.length; i += 2) headers.push([res.rawHeaders[i] ?? '', res.rawHeaders[i + 1] ?? '']);
        resolve({ status: res.statusCode ?? 0, headers, body: Buffer.concat(chunks).toString('utf8') });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** What may differ between two answers to the same request: the date, a generated request id, the seconds left in a rate-limit window. */
function comparable(exchange: Exchange, sentRequestId: boolean): Exchange {
  return {
    ...exchange,
    headers: exchange.headers
      .filter(([name]) => name !== 'Date')
      .map(([name, value]): [string, string] => {
        if (name.toLowerCase() === 'x-request-id' && !sentRequestId) return [name, '<generated>'];
        if (name === 'ratelimit') return [name, value.replace(/;t=\d+/, ';t=<s>')];
        return [name, value];
      }),
  };
}

/** Fastify's request log lines, without what differs between two runs. */
function requestLines(logs: string[]): unknown[] {
  return logs
    .flatMap((chunk) => chunk.split('\n').filter(Boolean))
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .filter((line) => line.msg === 'request completed')
    .map(({ level, msg, req, res, requestId, responseTime }) => ({ level, msg, req, res, requestId: typeof requestId, responseTime: typeof responseTime }));
}

const headerValue = (exchange: Exchange, name: string) => exchange.headers.find(([n]) => n === name)?.[1];

const NO_RATE_LIMIT: Limits = TEST_LIMITS;

for (const backend of httpBackends()) {
  describe(`v1 listing fast lane (${backend.name})`, () => {
    async function setup(t: TestContext, limits: Limits = NO_RATE_LIMIT) {
      const { config, storage } = await backend.freshDatabase(t);
      const services = testServices(storage);
      const account = await services.accounts.createAccount({ name: 'Lane' });
      const { secret } = await services.apiKeys.createKey({ accountId: account.id });
      const readOnly = await services.apiKeys.createKey({ accountId: account.id, scopes: ['orders:write'] });
      for (const id of [1n, 9007199254740993n, 9223372036854775807n]) {
        await services.orderOperations.createOrder({ accountId: account.id, id, petId: id, quantity: 2, shipDate: '2026-12-01T10:00:00.000Z' });
      }
      // The same services behind both: one with the lane in front of Fastify, one without.
      const lane = await host(t, services, storage, true, limits);
      const route = await host(t, services, storage, false, limits);
      return { config, services, account, auth: { authorization: `Bearer ${secret}` }, writeOnlyAuth: { authorization: `Bearer ${readOnly.secret}` }, lane, route };
    }

    /** Sends the same request to both hosts and asserts the same answer, byte for byte but for the date and generated ids. */
    async function same(lane: Host, route: Host, request: Request): Promise<Exchange> {
      const fromLane = await send(lane, request);
      const fromRoute = await send(route, request);
      const sentRequestId = request.headers?.['x-request-id'] !== undefined;
      assert.deepEqual(comparable(fromLane, sentRequestId), comparable(fromRoute, sentRequestId), `${request.method ?? 'GET'} ${request.path ?? ''} ${JSON.stringify(request.headers)}`);
      return fromLane;
    }

    /** Runs `request` on the lane host and tells whether the lane answered it (read the cached listing, opened it once, never built it). */
    async function answeredByLane(lane: Host, request: () => Promise<unknown>): Promise<boolean> {
      const before = { ...lane.seen };
      await request();
      return lane.seen.opens - before.opens === 1 && lane.seen.cachedReads - before.cachedReads === 1 && lane.seen.bodyCalls === before.bodyCalls;
    }

    test('when the listing is cached, then the lane answers with exactly the response the route sends, 200 and 304, and logs the same lines', async (t) => {
      const { auth, lane, route } = await setup(t);
      // The first list builds the cached listing (through the route on both hosts).
      const first = await same(lane, route, { headers: auth });
      assert.equal(first.status, 200);
      assert.equal(first.body, '[{"id":1,"petId":1,"quantity":2,"shipDate":"2026-12-01T10:00:00.000Z","complete":false},{"id":9007199254740993,"petId":9007199254740993,"quantity":2,"shipDate":"2026-12-01T10:00:00.000Z","complete":false},{"id":9223372036854775807,"petId":9223372036854775807,"quantity":2,"shipDate":"2026-12-01T10:00:00.000Z","complete":false}]');
      const etag = headerValue(first, 'etag') ?? '';

      assert.equal(await answeredByLane(lane, () => same(lane, route, { headers: auth })), true, 'a cached 200 is the lane’s');
      assert.equal(await answeredByLane(lane, () => same(lane, route, { headers: { ...auth, 'if-none-match': etag } })), true, 'a 304 is the lane’s');
      for (const ifNoneMatch of [`W/${etag}`, `"other", ${etag}`, '*', '"other"']) {
        const answer = await same(lane, route, { headers: { ...auth, 'if-none-match': ifNoneMatch } });
        assert.equal(answer.status, ifNoneMatch === '"other"' ? 200 : 304);
      }
      const echoed = await same(lane, route, { headers: { ...auth, 'x-request-id': 'trace-42' } });
      assert.equal(headerValue(echoed, 'x-request-id'), 'trace-42');
      assert.deepEqual(requestLines(lane.logs), requestLines(route.logs));
      assert.equal(requestLines(lane.logs).length, 8, "one line per request");
    });

    test('when a request is not the plain cached listing, then the lane leaves it to the route and the answers stay identical', async (t) => {
      const { auth, writeOnlyAuth, lane, route } = await setup(t);
      await same(lane, route, { headers: auth });
      const cases: Request[] = [
        { method: 'HEAD', headers: auth },
        { path: '/v1/store/orders?status=placed', headers: auth },
        { path: '/v1/store/orders/', headers: auth },
        { headers: writeOnlyAuth },
        { headers: {} },
        { headers: { authorization: 'Bearer so_prod_000000000000000000000000000000000000' } },
        { headers: { authorization: 'Basic dXNlcjpwYXNz' } },
        // Node sends one header line per array element (the typings allow one Authorization only).
        { headers: { authorization: [auth.authorization, auth.authorization] as unknown as string } },
        { headers: { ...auth, 'content-type': 'application/json', 'content-length': '2' }, body: '{}' },
      ];
      for (const request of cases) {
        const before = lane.seen.cachedReads;
        const answer = await same(lane, route, request);
        // Refused before the listing was looked at (the write-only key, bad keys) or not the lane's request at all.
        if (answer.status !== 200 || request.method === 'HEAD' || request.path !== undefined) assert.equal(lane.seen.cachedReads, before, JSON.stringify(request));
      }
      assert.deepEqual(requestLines(lane.logs), requestLines(route.logs));
    });

    test('when an order is cancelled here or by another connection, then the very next list through the lane shows it', async (t) => {
      const { config, account, auth, lane } = await setup(t);
      await send(lane, { headers: auth });
      const cancel = await send(lane, { method: 'DELETE', path: '/v1/store/orders/1', headers: auth });
      assert.equal(cancel.status, 204);
      const afterCancel = await send(lane, { headers: auth });
      assert.equal(afterCancel.body.includes('"id":1,'), false);
      assert.equal(afterCancel.body.startsWith('[{"id":9007199254740993,'), true);
      assert.equal(await answeredByLane(lane, () => send(lane, { headers: auth })), true);

      const other = openStorage(config);
      t.after(() => other.close());
      await testServices(other).orders.cancelOrder(account.id, 9007199254740993n);
      const afterOther = await send(lane, { headers: auth });
      assert.equal(afterOther.body, '[{"id":9223372036854775807,"petId":9223372036854775807,"quantity":2,"shipDate":"2026-12-01T10:00:00.000Z","complete":false}]');
      // An ETag from before the other connection's write no longer matches.
      const stale = headerValue(afterCancel, 'etag') ?? '';
      assert.equal((await send(lane, { headers: { ...auth, 'if-none-match': stale } })).status, 200);
    });

    test('when the key is revoked, then the lane no longer answers with the cached listing', async (t) => {
      const { services, account, lane } = await setup(t);
      const key = await services.apiKeys.createKey({ accountId: account.id });
      const auth = { authorization: `Bearer ${key.secret}` };
      await send(lane, { headers: auth });
      assert.equal(await answeredByLane(lane, () => send(lane, { headers: auth })), true);
      await services.apiKeys.revokeKey(key.apiKey.id);
      const refused = await send(lane, { headers: auth });
      assert.equal(refused.status, 401);
      assert.equal(JSON.parse(refused.body).code, 'invalid_api_key');
    });

    test('when a key lists through the lane and the route alike, then each request counts once against its rate limit', async (t) => {
      const { auth, lane, route } = await setup(t, { ...TEST_LIMITS, rateLimit: { requests: 4, windowSeconds: 3600 } });
      const remaining: (string | undefined)[] = [];
      for (let i = 0; i < 5; i++) {
        const answer = await same(lane, route, { headers: auth });
        remaining.push(headerValue(answer, 'ratelimit')?.replace(/;t=\d+/, ''));
        if (i === 4) {
          assert.equal(answer.status, 429);
          assert.equal(JSON.parse(answer.body).code, 'rate_limited');
        }
      }
      assert.deepEqual(remaining, ['"default";r=3', '"default";r=2', '"default";r=1', '"default";r=0', '"default";r=0']);
    });

    test('when an HTTP/1.1 request has no Host, then it gets the route’s Error record, not the cached listing', async (t) => {
      const { auth, lane } = await setup(t);
      await send(lane, { headers: auth });
      const socket = await openSocket(t, lane.port);
      const raw = await new Promise<string>((resolve) => {
        let text = '';
        socket.on('data', (chunk: Buffer) => {
          text += chunk.toString('utf8');
          if (text.includes('\r\n\r\n') && parseResponse(text).body.length > 0) resolve(text);
        });
        socket.write(`GET /v1/store/orders HTTP/1.1\r\nAuthorization: ${auth.authorization}\r\n\r\n`);
      });
      const response = parseResponse(raw);
      assert.equal(response.statusCode, 400);
      assert.equal(JSON.parse(response.body).code, 'malformed_request');
    });
  });
}
