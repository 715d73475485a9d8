import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createTenant, eventually } from '../support/quickstart.js';
import { startServer } from '../support/process.js';
import { sendRaw } from '../support/raw-http.js';
import { httpBackends } from '../support/storage.js';
import { testServices } from '../support/container.js';
import { databaseUrlOf, scrape, total } from './scrape.js';

const DURATION = 'http_server_request_duration_seconds_count';

for (const backend of httpBackends()) {
  describe(`the metrics listener of store-orders serve (${backend.name})`, () => {
    test('when requests reach both hosts, the fast lane and the parser, then one scrape of the metrics listener counts each by route, method, status and host', async (t) => {
      const { config, storage } = await backend.freshDatabase(t);
      const { auth } = await createTenant(testServices(storage), 'Scraped');
      const server = await startServer(t, { DATABASE_URL: databaseUrlOf(config) });
      const metricsUrl = server.metricsUrl;
      assert.ok(metricsUrl, 'the greeting names the metrics URL');
      assert.match(metricsUrl, /^http:\/\/127\.0\.0\.1:\d+\/metrics$/);

      // Metrics are never on a public host.
      assert.equal((await fetch(`${server.baseUrl}/metrics`)).status, 404);
      assert.ok(server.quickstartUrl);
      assert.equal((await fetch(`${server.quickstartUrl}/metrics`)).status, 404);

      const listing = `${server.baseUrl}/v1/store/orders`;
      // The first listing goes through Fastify and fills the cache; the next ones are the fast lane's.
      for (let i = 0; i < 3; i++) assert.equal((await fetch(listing, { headers: auth })).status, 200);
      assert.equal((await fetch(`${server.baseUrl}/v1/store/orders/12345`, { method: 'DELETE', headers: auth })).status, 404);
      assert.equal((await fetch(`${server.baseUrl}/no/such/path`)).status, 404);
      assert.equal((await fetch(`${server.quickstartUrl}/messages/1`, { headers: auth })).status, 404);
      const port = Number(new URL(server.baseUrl).port);
      assert.equal((await sendRaw(port, 'NONSENSE\r\n\r\n')).statusCode, 400);
      assert.equal((await sendRaw(port, `GET / HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(64 * 1024)}\r\n\r\n`)).statusCode, 431);

      const samples = await scrape(metricsUrl);
      assert.equal(total(samples, DURATION, { server: 'store', http_route: '/v1/store/orders', http_request_method: 'GET', http_response_status_code: '200' }), 3);
      assert.equal(total(samples, DURATION, { server: 'store', http_route: '/v1/store/orders/:orderId', http_request_method: 'DELETE', http_response_status_code: '404' }), 1);
      assert.equal(total(samples, DURATION, { server: 'store', http_route: '_unmatched', http_request_method: 'GET', http_response_status_code: '404' }), 2);
      assert.equal(total(samples, DURATION, { server: 'quickstart', http_route: '/messages/:id', http_response_status_code: '404' }), 1);
      assert.equal(total(samples, DURATION, { server: 'store', http_route: '_unmatched', http_request_method: '_OTHER', http_response_status_code: '400' }), 1);
      assert.equal(total(samples, DURATION, { server: 'store', http_request_method: '_OTHER', http_response_status_code: '431' }), 1);
      assert.ok(samples.some((s) => s.name === 'http_server_request_duration_seconds_bucket' && s.labels.le === '0.005'));
      assert.ok(samples.some((s) => s.name === 'http_server_request_duration_seconds_bucket' && s.labels.le === '7.5'));
      assert.equal(total(samples, 'http_server_active_requests', { server: 'store' }), 0);
      // The first listing was built, the fast lane served the next two from the cache.
      assert.equal(total(samples, 'store_listing_cache_lookups_total', { result: 'miss' }), 1);
      assert.equal(total(samples, 'store_listing_cache_lookups_total', { result: 'hit' }), 2);
      // Node's default process metrics.
      assert.ok(samples.some((s) => s.name === 'process_cpu_user_seconds_total'));
      assert.ok(samples.some((s) => s.name === 'nodejs_eventloop_lag_seconds'));
    });
  });
}

describe('the HTTP metrics series', () => {
  test('when 2,000 requests go to distinct unknown paths with unknown methods, then no series is added', async (t) => {
    const [backend] = httpBackends();
    assert.ok(backend);
    const { config } = await backend.freshDatabase(t);
    const server = await startServer(t, { DATABASE_URL: databaseUrlOf(config), QUICKSTART_PORT: 'off', RATE_LIMIT_REQUESTS: '1000000000' });
    assert.ok(server.metricsUrl);
    const request = (i: number) => fetch(`${server.baseUrl}/unknown-${i}`, { method: i % 2 === 0 ? 'GET' : `BREW${i}` }).then((r) => r.arrayBuffer());
    await request(0);
    await request(1);
    const before = await scrape(server.metricsUrl);
    let next = 2;
    const worker = async () => {
      while (next < 2000) await request(next++);
    };
    await Promise.all(Array.from({ length: 16 }, worker));
    const after = await scrape(server.metricsUrl);
    const series = (samples: typeof before) => samples.filter((s) => s.name.startsWith('http_server_')).length;
    assert.equal(series(after), series(before));
    assert.equal(total(after, DURATION, { http_route: '_unmatched' }), 2000);
  });
});

describe('refusals', () => {
  test('when a client exceeds its rate limit and the server sheds load, then store_http_refusals_total counts each by reason', async (t) => {
    const [backend] = httpBackends();
    assert.ok(backend);
    const { config } = await backend.freshDatabase(t);
    const limited = await startServer(t, { DATABASE_URL: databaseUrlOf(config), QUICKSTART_PORT: 'off', RATE_LIMIT_REQUESTS: '2' });
    const statuses = [];
    for (let i = 0; i < 4; i++) statuses.push((await fetch(`${limited.baseUrl}/nowhere`)).status);
    assert.deepEqual(statuses, [404, 404, 429, 429]);
    assert.ok(limited.metricsUrl);
    const samples = await scrape(limited.metricsUrl);
    assert.equal(total(samples, 'store_http_refusals_total', { server: 'store', reason: 'rate_limited' }), 2);
    assert.equal(total(samples, 'store_http_refusals_total', { server: 'store', reason: 'overloaded' }), 0);

    // Any heap is above 1 MB: every sheddable request is refused once the sampler has looked.
    const shedding = await startServer(t, { DATABASE_URL: databaseUrlOf(config), QUICKSTART_PORT: 'off', LOAD_SHED_MAX_HEAP_MB: '1' });
    assert.ok(shedding.metricsUrl);
    await eventually(async () => ((await fetch(`${shedding.baseUrl}/nowhere`)).status === 503 ? true : undefined), 50);
    assert.ok(total(await scrape(shedding.metricsUrl), 'store_http_refusals_total', { reason: 'overloaded' }) >= 1);
  });
});
