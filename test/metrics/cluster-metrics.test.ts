import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { startServer } from '../support/process.js';
import { httpBackends } from '../support/storage.js';
import { databaseUrlOf, scrape, total } from './scrape.js';

describe('metrics of serve --workers', () => {
  test('when two workers share the load, then one scrape of the primary returns both workers\' requests, aggregated', async (t) => {
    const [backend] = httpBackends();
    assert.ok(backend);
    const { config } = await backend.freshDatabase(t);
    const server = await startServer(t, { DATABASE_URL: databaseUrlOf(config), QUICKSTART_PORT: 'off' }, ['--workers', '2']);
    assert.ok(server.metricsUrl, 'the primary names the metrics URL in its greeting');
    assert.match(server.stderr(), /Prometheus metrics at http:\/\/127\.0\.0\.1:\d+\/metrics \(every worker, aggregated\)/);
    // New connections each time, so that the cluster hands them to both workers.
    for (let i = 0; i < 40; i++) {
      const response = await fetch(`${server.baseUrl}/healthz`, { headers: { connection: 'close' } });
      assert.equal(response.status, 200);
    }
    const samples = await scrape(server.metricsUrl);
    assert.equal(total(samples, 'http_server_request_duration_seconds_count', { server: 'store', http_route: '/healthz' }), 40);
    // Process metrics of both workers, summed.
    assert.ok(total(samples, 'process_cpu_user_seconds_total') > 0);
    assert.ok(samples.some((s) => s.name === 'nodejs_heap_size_used_bytes'));
  });
});
