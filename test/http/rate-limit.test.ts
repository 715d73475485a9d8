import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { generateApiKey } from '../../src/api-keys/api-key-format.js';
import type { Limits } from '../../src/config/limits.js';
import { createRateLimiter } from '../../src/http/protection/rate-limit.js';
import { createTestApp, errorBody } from '../support/app.js';
import { httpBackends } from '../support/storage.js';
import { testConfig } from '../support/container.js';

/** The documented limits, as a process started without limit variables has them. */
const TEST_LIMITS: Limits = testConfig().limits;

const limitOf = (requests: number, windowSeconds = 60): Limits => ({ ...TEST_LIMITS, rateLimit: { requests, windowSeconds } });

describe('fixed-window rate limiter', () => {
  test('when the quota is spent, then requests are refused until the window ends, and the reset counts down', () => {
    let now = 1_000_000;
    const limiter = createRateLimiter({ requests: 3, windowSeconds: 10 }, () => now);
    assert.deepEqual(limiter.consume('a'), { allowed: true, limit: 3, remaining: 2, resetSeconds: 10 });
    now += 4_500;
    assert.deepEqual(limiter.consume('a'), { allowed: true, limit: 3, remaining: 1, resetSeconds: 6 });
    assert.deepEqual(limiter.consume('a'), { allowed: true, limit: 3, remaining: 0, resetSeconds: 6 });
    assert.deepEqual(limiter.consume('a'), { allowed: false, limit: 3, remaining: 0, resetSeconds: 6 });
    assert.equal(limiter.consume('b')?.allowed, true, 'another bucket has its own quota');
    now += 5_500;
    assert.deepEqual(limiter.consume('a'), { allowed: true, limit: 3, remaining: 2, resetSeconds: 10 });
  });

  test('when limiting is off (0 requests), then nothing is counted', () => {
    assert.equal(createRateLimiter({ requests: 0, windowSeconds: 60 }).consume('a'), undefined);
  });

  test('when very many addresses appear, then memory stays bounded by forgetting the oldest buckets', () => {
    const limiter = createRateLimiter({ requests: 1, windowSeconds: 3600 }, () => 0);
    for (let i = 0; i < 150_000; i++) limiter.consume(`ip:${i}`);
    // The first addresses were forgotten (their quota starts again), the latest were not.
    assert.equal(limiter.consume('ip:0')?.allowed, true);
    assert.equal(limiter.consume('ip:149999')?.allowed, false);
  });
});

for (const backend of httpBackends()) {
  describe(`rate limits over HTTP (${backend.name})`, () => {
    test('when a key exceeds its quota, then 429 rate_limited with Retry-After, and every answer carries RateLimit headers', async (t) => {
      const { app, tenant } = await createTestApp(t, backend, { limits: limitOf(3) });
      const { auth } = await tenant();
      const other = await tenant();
      for (let i = 0; i < 3; i++) {
        const ok = await app.inject({ method: 'GET', url: '/v1/store/orders', headers: auth });
        assert.equal(ok.statusCode, 200);
        assert.equal(ok.headers['ratelimit-policy'], '"default";q=3;w=60');
        assert.match(String(ok.headers.ratelimit), new RegExp(`^"default";r=${2 - i};t=([1-9]|[1-5][0-9]|60)$`));
        assert.equal(ok.headers['retry-after'], undefined);
      }
      const refused = await app.inject({ method: 'GET', url: '/v1/store/orders', headers: auth });
      assert.equal(refused.statusCode, 429);
      assert.equal(errorBody(refused).code, 'rate_limited');
      assert.match(String(refused.headers['retry-after']), /^[1-9][0-9]*$/);
      assert.match(String(refused.headers.ratelimit), /^"default";r=0;t=[1-9][0-9]*$/);
      assert.equal(refused.headers.ratelimit?.toString().split('t=')[1], refused.headers['retry-after']);
      // Other routes share the key's budget; other keys have their own.
      assert.equal((await app.inject({ method: 'DELETE', url: '/v1/store/orders/1', headers: auth })).statusCode, 429);
      assert.equal((await app.inject({ method: 'GET', url: '/v1/store/orders', headers: other.auth })).statusCode, 200);
    });

    test('when invalid keys are tried from one address, then after the quota that address gets 429 instead of 401, while valid keys are still served', async (t) => {
      const { app, tenant } = await createTestApp(t, backend, { limits: limitOf(5) });
      const { auth } = await tenant();
      for (let i = 0; i < 5; i++) {
        const guess = await app.inject({ method: 'GET', url: '/v1/store/orders', headers: { authorization: `Bearer ${generateApiKey('production').key}` } });
        assert.equal(guess.statusCode, 401);
        assert.match(String(guess.headers.ratelimit), new RegExp(`^"default";r=${4 - i};t=[0-9]+$`));
      }
      const blocked = await app.inject({ method: 'GET', url: '/v1/store/orders', headers: { authorization: `Bearer ${generateApiKey('production').key}` } });
      assert.equal(blocked.statusCode, 429);
      assert.equal(errorBody(blocked).code, 'rate_limited');
      const missing = await app.inject({ method: 'GET', url: '/v1/store/orders' });
      assert.equal(missing.statusCode, 429, 'no key at all counts against the address too');
      // inject() comes from 127.0.0.1 like the guesses: a valid key is counted on its own budget.
      assert.equal((await app.inject({ method: 'GET', url: '/v1/store/orders', headers: auth })).statusCode, 200);
      const elsewhere = await app.inject({
        method: 'GET',
        url: '/v1/store/orders',
        remoteAddress: '192.0.2.7',
        headers: { authorization: `Bearer ${generateApiKey('production').key}` },
      });
      assert.equal(elsewhere.statusCode, 401, 'another address has its own budget');
    });

    test('when unauthenticated paths are hammered, then they are limited per address, but health probes never are', async (t) => {
      const { app } = await createTestApp(t, backend, { limits: limitOf(2) });
      assert.equal((await app.inject({ method: 'GET', url: '/nope' })).statusCode, 404);
      assert.equal((await app.inject({ method: 'GET', url: '/v1/nope' })).statusCode, 404);
      const refused = await app.inject({ method: 'GET', url: '/nope' });
      assert.equal(refused.statusCode, 429);
      assert.equal(errorBody(refused).code, 'rate_limited');
      for (let i = 0; i < 10; i++) {
        const health = await app.inject({ method: 'GET', url: '/healthz' });
        assert.equal(health.statusCode, 200);
        assert.equal(health.headers.ratelimit, undefined);
        assert.equal((await app.inject({ method: 'GET', url: '/readyz' })).statusCode, 200);
      }
    });

    test('when X-Forwarded-For is sent, then it is ignored unless the sender is a trusted proxy (no dodging per-address limits)', async (t) => {
      const direct = await createTestApp(t, backend, { limits: limitOf(2) });
      for (const address of ['198.51.100.1', '198.51.100.2', '198.51.100.3']) {
        const response = await direct.app.inject({ method: 'GET', url: '/nope', headers: { 'x-forwarded-for': address } });
        assert.equal(response.statusCode, address.endsWith('3') ? 429 : 404, address);
      }
      const proxied = await createTestApp(t, backend, { limits: { ...limitOf(2), trustProxy: ['127.0.0.1'] } });
      for (const address of ['198.51.100.1', '198.51.100.2', '198.51.100.3', '198.51.100.3']) {
        const response = await proxied.app.inject({ method: 'GET', url: '/nope', headers: { 'x-forwarded-for': address } });
        assert.equal(response.statusCode, 404, `each forwarded client has its own budget: ${address}`);
      }
    });

    test('when RATE_LIMIT_REQUESTS is 0, then no request is limited and no RateLimit headers are sent', async (t) => {
      const { app, tenant } = await createTestApp(t, backend, { limits: limitOf(0) });
      const { auth } = await tenant();
      for (let i = 0; i < 20; i++) {
        const response = await app.inject({ method: 'GET', url: '/v1/store/orders', headers: auth });
        assert.equal(response.statusCode, 200);
        assert.equal(response.headers.ratelimit, undefined);
      }
    });
  });
}
