/**
 * METRICS_PORT=off: nobody scrapes, so nothing is measured: no listener per
 * response on the hosts' servers, no wrapper around the services'
 * collaborators, no registry.
 */
import assert from 'node:assert/strict';
import { IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import { describe, test } from 'node:test';
import { createContainer } from '../../src/composition.js';
import { createMetricsRegistry } from '../../src/observability/metrics-registry.js';
import { createHttpMetrics, UNCOUNTED_HTTP_METRICS } from '../../src/observability/http-metrics.js';
import { UNCOUNTED_SERVICE_METRICS } from '../../src/observability/service-metrics.js';
import { httpBackends } from '../support/storage.js';
import { testConfig } from '../support/container.js';
import { databaseUrlOf } from './scrape.js';

describe('metrics off', () => {
  test('when the HTTP metrics are the uncounted ones, then following a response adds no listener and marks nothing on it (the counted ones do both)', () => {
    const responseOf = () => new ServerResponse(new IncomingMessage(new Socket()));
    const untracked = responseOf();
    const uncounted = UNCOUNTED_HTTP_METRICS.host('store');
    uncounted.begin(untracked);
    uncounted.follow(untracked);
    assert.equal(untracked.listenerCount('close'), 0);
    assert.deepEqual(Object.getOwnPropertySymbols(untracked).filter((symbol) => symbol.description === 'started_at'), []);
    const tracked = responseOf();
    const counted = createHttpMetrics(createMetricsRegistry({ clusterWorker: false })).host('store');
    const before = tracked.listenerCount('close');
    counted.begin(tracked);
    counted.follow(tracked);
    assert.equal(tracked.listenerCount('close'), before + 1);
  });

  test('when a container has no registry (METRICS_PORT=off, the CLI), then its collaborators are handed over unwrapped', async (t) => {
    const backend = httpBackends()[0];
    assert.ok(backend);
    const { config } = await backend.freshDatabase(t);
    const container = createContainer(testConfig({ DATABASE_URL: databaseUrlOf(config), METRICS_PORT: 'off' }), { registry: null });
    t.after(() => container.close());
    assert.equal(container.metrics, UNCOUNTED_SERVICE_METRICS);
    assert.equal(container.metrics.groupCommits(container.storage.orders), container.storage.orders);
    assert.equal(container.metrics.keyLookups(container.storage.apiKeys, 'cache'), container.storage.apiKeys);
  });
});
