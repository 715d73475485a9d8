/**
 * METRICS_PORT=off: nobody scrapes, so nothing is measured: no listener per
 * response on the hosts' servers, no wrapper around the services'
 * collaborators, no registry.
 */
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { describe, test } from 'node:test';
import { createContainer, createMetricsRegistry } from '../../src/composition.js';
import { createHttpMetrics, UNCOUNTED_HTTP_METRICS } from '../../src/http/http-metrics.js';
import { UNCOUNTED_SERVICE_METRICS } from '../../src/service-metrics.js';
import { testBackends } from '../support/storage.js';
import { testConfig } from '../support/container.js';
import { databaseUrlOf } from './scrape.js';

describe('metrics off', () => {
  test('when the HTTP metrics are the uncounted ones, then tracking a server adds no listener to it (the counted ones add one)', () => {
    const untracked = createServer();
    UNCOUNTED_HTTP_METRICS.host('store').track(untracked);
    assert.equal(untracked.listenerCount('request'), 0);
    const tracked = createServer();
    createHttpMetrics(createMetricsRegistry({ clusterWorker: false })).host('store').track(tracked);
    assert.equal(tracked.listenerCount('request'), 1);
  });

  test('when a container has no registry (METRICS_PORT=off, the CLI), then its collaborators are handed over unwrapped', async (t) => {
    const backend = testBackends()[0];
    assert.ok(backend);
    const { config } = await backend.freshDatabase(t);
    const container = createContainer(testConfig({ DATABASE_URL: databaseUrlOf(config), METRICS_PORT: 'off' }), { registry: null });
    t.after(() => container.close());
    assert.equal(container.metrics, UNCOUNTED_SERVICE_METRICS);
    assert.equal(container.metrics.groupCommits(container.storage.orders), container.storage.orders);
    assert.equal(container.metrics.keyLookups(container.storage.apiKeys, 'cache'), container.storage.apiKeys);
  });
});
