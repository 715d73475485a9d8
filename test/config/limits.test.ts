import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config/config.js';

describe('limits configuration', () => {
  test('when nothing is set, then the documented defaults apply', () => {
    assert.deepEqual(loadConfig({}, '/srv/app').limits, {
      rateLimit: { requests: 100, windowSeconds: 60 },
      headersTimeoutMs: 5_000,
      requestTimeoutMs: 15_000,
      keepAliveTimeoutMs: 72_000,
      maxConnections: 1024,
      maxConnectionsPerAddress: 128,
      loadShedding: {
        maxEventLoopDelayMs: 1000,
        maxEventLoopUtilization: 0,
        maxHeapUsedBytes: 0,
        sampleIntervalMs: 1000,
        retryAfterSeconds: 5,
      },
      keyUsageFlushMs: 60_000,
      trustProxy: [],
    });
  });

  test('when values are set, then they are parsed', () => {
    const { limits } = loadConfig(
      {
        RATE_LIMIT_REQUESTS: '0',
        RATE_LIMIT_WINDOW_SECONDS: '1',
        HEADERS_TIMEOUT_MS: '500',
        REQUEST_TIMEOUT_MS: '500',
        MAX_CONNECTIONS: '2',
        LOAD_SHED_MAX_EVENT_LOOP_UTILIZATION: '0.5',
        LOAD_SHED_MAX_HEAP_MB: '512',
        TRUST_PROXY: '10.0.0.0/8, loopback,::1',
      },
      '/srv/app',
    );
    assert.deepEqual(limits.rateLimit, { requests: 0, windowSeconds: 1 });
    assert.equal(limits.headersTimeoutMs, 500);
    assert.equal(limits.maxConnections, 2);
    assert.equal(limits.loadShedding.maxEventLoopUtilization, 0.5);
    assert.equal(limits.loadShedding.maxHeapUsedBytes, 512 * 1024 * 1024);
    assert.deepEqual(limits.trustProxy, ['10.0.0.0/8', 'loopback', '::1']);
  });

  test('when values are out of range or not numbers, then one start names every bad variable', () => {
    assert.throws(
      () =>
        loadConfig(
          {
            RATE_LIMIT_REQUESTS: '-1',
            RATE_LIMIT_WINDOW_SECONDS: '0',
            HEADERS_TIMEOUT_MS: '20000',
            REQUEST_TIMEOUT_MS: '10000',
            MAX_CONNECTIONS: 'lots',
            LOAD_SHED_MAX_EVENT_LOOP_UTILIZATION: '1.5',
            TRUST_PROXY: 'everyone',
          },
          '/srv/app',
        ),
      (error: unknown) => {
        assert.ok(error instanceof ConfigError);
        const text = error.problems.join('\n');
        for (const name of ['RATE_LIMIT_REQUESTS', 'RATE_LIMIT_WINDOW_SECONDS', 'REQUEST_TIMEOUT_MS must not be less', 'MAX_CONNECTIONS', 'LOAD_SHED_MAX_EVENT_LOOP_UTILIZATION', 'TRUST_PROXY']) {
          assert.match(text, new RegExp(name));
        }
        return true;
      },
    );
  });
});
