import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import fc from 'fast-check';
import type { Limits } from '../../src/config/limits.js';
import { createLogger } from '../../src/http/logging.js';
import { createRateLimiter } from '../../src/http/protection/rate-limit.js';
import { buildTestStoreApp, createTestApp, errorBody } from '../support/app.js';
import { createTestQuickstartApp } from '../support/quickstart.js';
import { httpBackends } from '../support/storage.js';
import { testConfig } from '../support/container.js';

/** The documented limits, as a process started without limit variables has them. */
const TEST_LIMITS: Limits = testConfig().limits;

const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const JSON_TYPE = { 'content-type': 'application/json' };
const limitOf = (requests: number, windowSeconds = 60): Limits => ({ ...TEST_LIMITS, rateLimit: { requests, windowSeconds } });
/** For tests that send more requests on one key than the default quota allows; rate limits have their own tests. */
const NO_RATE_LIMIT = limitOf(0);

for (const backend of httpBackends()) {
  describe(`quickstart POST /messages and GET /messages/{id} (${backend.name})`, () => {
    test('when a valid message is posted, then 202 with Location and the queued record, stored before the answer', async (t) => {
      const { app, storage, tenant } = await createTestQuickstartApp(t, backend);
      const { account, auth } = await tenant();
      const text = 'Hello, 世界 👋🏽 — café, עברית, e\u0301, line\u2028separator';
      const response = await app.inject({ method: 'POST', url: '/messages', headers: { ...auth, ...JSON_TYPE }, payload: JSON.stringify({ message: text }) });
      assert.equal(response.statusCode, 202);
      const body = response.json<Record<string, unknown>>();
      assert.deepEqual(Object.keys(body).sort(), ['createdAt', 'id', 'message', 'status']);
      assert.equal(typeof body.id, 'string');
      assert.equal(body.message, text);
      assert.equal(body.status, 'queued');
      assert.match(String(body.createdAt), ISO_UTC);
      assert.equal(response.headers.location, `/messages/${String(body.id)}`);
      assert.equal(response.headers['content-type'], 'application/json; charset=utf-8');
      const stored = await storage.messages.findForAccount(account.id, String(body.id));
      assert.equal(stored?.status, 'queued');
      assert.equal(stored?.message, text);
    });

    test('when GET follows the Location, then it returns the message with its current status', async (t) => {
      const { app, storage, tenant } = await createTestQuickstartApp(t, backend);
      const { auth } = await tenant();
      const posted = await app.inject({ method: 'POST', url: '/messages', headers: { ...auth, ...JSON_TYPE }, payload: { message: 'hi' } });
      const location = String(posted.headers.location);
      const queued = await app.inject({ method: 'GET', url: location, headers: auth });
      assert.equal(queued.statusCode, 200);
      assert.deepEqual(queued.json(), posted.json());

      const [claimed] = await storage.messages.claimDue({ claimant: 'test', now: new Date().toISOString(), claimedUntil: new Date(Date.now() + 60_000).toISOString(), limit: 1 });
      assert.ok(claimed);
      assert.equal(await storage.messages.markSent({ id: claimed.id, claimant: 'test', at: new Date().toISOString() }), true);
      const sent = await app.inject({ method: 'GET', url: location, headers: auth });
      assert.equal(sent.json<{ status: string }>().status, 'sent');
    });

    test("when another account's message or an unknown id is requested, then 404 message_not_found for both", async (t) => {
      const { app, tenant } = await createTestQuickstartApp(t, backend);
      const owner = await tenant('Owner');
      const other = await tenant('Other');
      const posted = await app.inject({ method: 'POST', url: '/messages', headers: { ...owner.auth, ...JSON_TYPE }, payload: { message: 'private' } });
      const theirs = await app.inject({ method: 'GET', url: String(posted.headers.location), headers: other.auth });
      const unknown = await app.inject({ method: 'GET', url: '/messages/does-not-exist', headers: other.auth });
      for (const response of [theirs, unknown]) {
        assert.equal(response.statusCode, 404);
        assert.equal(errorBody(response).code, 'message_not_found');
      }
      assert.equal(theirs.body, unknown.body);
    });

    describe('authentication', () => {
      const cases: [string, Record<string, string>, string][] = [
        ['no Authorization header', {}, 'missing_api_key'],
        ['a malformed key', { authorization: 'Bearer nope' }, 'invalid_api_key'],
        ['a well-formed unknown key', { authorization: 'Bearer sk_live_0000000000000000000000000000000000000000' }, 'invalid_api_key'],
        ['a non-Bearer scheme', { authorization: 'Basic dXNlcjpwYXNz' }, 'invalid_api_key'],
      ];
      for (const [name, headers, code] of cases) {
        test(`when POST or GET carries ${name}, then 401 ${code} with WWW-Authenticate`, async (t) => {
          const { app } = await createTestQuickstartApp(t, backend);
          for (const request of [
            { method: 'POST' as const, url: '/messages', headers: { ...headers, ...JSON_TYPE }, payload: { message: 'x' } },
            // Authentication comes first: a bad body does not reveal anything to a caller without a key.
            { method: 'POST' as const, url: '/messages', headers: { ...headers, 'content-type': 'text/plain' }, payload: '{' },
            { method: 'GET' as const, url: '/messages/abc', headers },
          ]) {
            const response = await app.inject(request);
            assert.equal(response.statusCode, 401);
            assert.equal(errorBody(response).code, code);
            assert.match(String(response.headers['www-authenticate']), /^Bearer realm=/);
          }
        });
      }

      test('when the key has been revoked, then 401 invalid_api_key', async (t) => {
        const { app, services, tenant } = await createTestQuickstartApp(t, backend);
        const { account, auth } = await tenant();
        const [key] = await services.apiKeys.listKeys(account.id);
        assert.ok(key);
        await services.apiKeys.revokeKey(key.id);
        const response = await app.inject({ method: 'POST', url: '/messages', headers: { ...auth, ...JSON_TYPE }, payload: { message: 'x' } });
        assert.equal(response.statusCode, 401);
        assert.equal(errorBody(response).code, 'invalid_api_key');
      });
    });

    describe('bad requests', () => {
      const rows: { name: string; headers: Record<string, string>; payload?: string | Buffer; code: string }[] = [
        { name: 'invalid JSON', headers: JSON_TYPE, payload: '{"message": "x"', code: 'malformed_request' },
        { name: 'an empty body', headers: JSON_TYPE, payload: '', code: 'malformed_request' },
        { name: 'a body that is an array', headers: JSON_TYPE, payload: '[{"message":"x"}]', code: 'validation_failed' },
        { name: 'a body that is a string', headers: JSON_TYPE, payload: '"x"', code: 'validation_failed' },
        { name: 'a body that is a number', headers: JSON_TYPE, payload: '42', code: 'validation_failed' },
        { name: 'a body that is null', headers: JSON_TYPE, payload: 'null', code: 'validation_failed' },
        { name: 'no message field', headers: JSON_TYPE, payload: '{}', code: 'validation_failed' },
        { name: 'a null message', headers: JSON_TYPE, payload: '{"message":null}', code: 'validation_failed' },
        { name: 'a numeric message', headers: JSON_TYPE, payload: '{"message":42}', code: 'validation_failed' },
        { name: 'a boolean message', headers: JSON_TYPE, payload: '{"message":true}', code: 'validation_failed' },
        { name: 'an array message', headers: JSON_TYPE, payload: '{"message":["x"]}', code: 'validation_failed' },
        { name: 'an object message', headers: JSON_TYPE, payload: '{"message":{"text":"x"}}', code: 'validation_failed' },
        { name: 'an empty message', headers: JSON_TYPE, payload: '{"message":""}', code: 'validation_failed' },
        { name: 'an unknown field', headers: JSON_TYPE, payload: '{"message":"x","priority":1}', code: 'validation_failed' },
        { name: 'a lone surrogate in message', headers: JSON_TYPE, payload: '{"message":"a\\ud800b"}', code: 'validation_failed' },
        { name: 'a NUL character in message', headers: JSON_TYPE, payload: '{"message":"a\\u0000b"}', code: 'validation_failed' },
        { name: 'bytes that are not UTF-8', headers: JSON_TYPE, payload: Buffer.from([0x7b, 0x22, 0x6d, 0x65, 0x73, 0x73, 0x61, 0x67, 0x65, 0x22, 0x3a, 0x22, 0xff, 0x22, 0x7d]), code: 'malformed_request' },
        { name: 'no Content-Type', headers: {}, payload: '{"message":"x"}', code: 'content_type_not_json' },
        { name: 'no Content-Type and no body', headers: {}, code: 'content_type_not_json' },
        { name: 'Content-Type text/plain', headers: { 'content-type': 'text/plain' }, payload: '{"message":"x"}', code: 'content_type_not_json' },
        { name: 'a form encoding', headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: 'message=x', code: 'content_type_not_json' },
        { name: 'multipart form data', headers: { 'content-type': 'multipart/form-data; boundary=b' }, payload: '--b\r\nContent-Disposition: form-data; name="message"\r\n\r\nx\r\n--b--\r\n', code: 'content_type_not_json' },
        { name: 'the look-alike application/jsonx', headers: { 'content-type': 'application/jsonx' }, payload: '{"message":"x"}', code: 'content_type_not_json' },
        { name: 'the look-alike application/json-patch+json', headers: { 'content-type': 'application/json-patch+json' }, payload: '{"message":"x"}', code: 'content_type_not_json' },
        { name: 'the look-alike text/json', headers: { 'content-type': 'text/json' }, payload: '{"message":"x"}', code: 'content_type_not_json' },
        { name: 'an unparseable Content-Type', headers: { 'content-type': 'application/json garbage' }, payload: '{"message":"x"}', code: 'content_type_not_json' },
        { name: 'a charset other than UTF-8', headers: { 'content-type': 'application/json; charset=iso-8859-1' }, payload: '{"message":"x"}', code: 'content_type_not_json' },
      ];
      for (const row of rows) {
        test(`when the request has ${row.name}, then 400 ${row.code} and nothing is queued`, async (t) => {
          const { app, storage, tenant } = await createTestQuickstartApp(t, backend);
          const { auth } = await tenant();
          const response = await app.inject({ method: 'POST', url: '/messages', headers: { ...auth, ...row.headers }, ...(row.payload === undefined ? {} : { payload: row.payload }) });
          assert.equal(response.statusCode, 400, response.body);
          assert.equal(errorBody(response).code, row.code);
          assert.ok(response.headers['x-request-id']);
          const queued = await storage.messages.claimDue({ claimant: 'probe', now: '9999-12-31T00:00:00.000Z', claimedUntil: '9999-12-31T00:00:00.000Z', limit: 10 });
          assert.deepEqual(queued, []);
        });
      }

      for (const contentType of ['application/json', 'Application/JSON', 'application/json; charset=utf-8', 'application/json;charset="UTF-8"', 'application/json; profile=x']) {
        test(`when Content-Type is ${contentType}, then the message is accepted`, async (t) => {
          const { app, tenant } = await createTestQuickstartApp(t, backend);
          const { auth } = await tenant();
          const response = await app.inject({ method: 'POST', url: '/messages', headers: { ...auth, 'content-type': contentType }, payload: '{"message":"x"}' });
          assert.equal(response.statusCode, 202, response.body);
        });
      }
    });

    describe('size bounds', () => {
      test('when message is 4096 characters of 4-byte emoji, then it is accepted as sent', async (t) => {
        const { app, tenant } = await createTestQuickstartApp(t, backend);
        const { auth } = await tenant();
        const text = '🐶'.repeat(4096);
        const response = await app.inject({ method: 'POST', url: '/messages', headers: { ...auth, ...JSON_TYPE }, payload: JSON.stringify({ message: text }) });
        assert.equal(response.statusCode, 202);
        assert.equal(response.json<{ message: string }>().message, text);
      });

      test('when a 4096-character message is sent fully \\u-escaped, then it still fits the body bound', async (t) => {
        const { app, tenant } = await createTestQuickstartApp(t, backend);
        const { auth } = await tenant();
        const payload = `{"message":"${'\\ud83d\\udc36'.repeat(4096)}"}`;
        const response = await app.inject({ method: 'POST', url: '/messages', headers: { ...auth, ...JSON_TYPE }, payload });
        assert.equal(response.statusCode, 202);
        assert.equal(response.json<{ message: string }>().message, '🐶'.repeat(4096));
      });

      test('when message is 4097 characters, then 400 validation_failed', async (t) => {
        const { app, tenant } = await createTestQuickstartApp(t, backend);
        const { auth } = await tenant();
        const response = await app.inject({ method: 'POST', url: '/messages', headers: { ...auth, ...JSON_TYPE }, payload: JSON.stringify({ message: 'x'.repeat(4097) }) });
        assert.equal(response.statusCode, 400);
        assert.equal(errorBody(response).code, 'validation_failed');
      });

      test('when the body is larger than 64 KiB, then 413 payload_too_large', async (t) => {
        const { app, tenant } = await createTestQuickstartApp(t, backend);
        const { auth } = await tenant();
        const payload = JSON.stringify({ message: 'x'.repeat(64 * 1024) });
        const response = await app.inject({ method: 'POST', url: '/messages', headers: { ...auth, ...JSON_TYPE }, payload });
        assert.equal(response.statusCode, 413);
        assert.equal(errorBody(response).code, 'payload_too_large');
      });
    });

    test('when any well-formed Unicode text is posted, then GET returns it unchanged', async (t) => {
      const { app, tenant } = await createTestQuickstartApp(t, backend, { limits: NO_RATE_LIMIT });
      const { auth } = await tenant();
      await fc.assert(
        fc.asyncProperty(
          fc.string({ unit: 'grapheme', minLength: 1, maxLength: 40 }).filter((s) => !s.includes('\u0000')),
          async (text) => {
            const posted = await app.inject({ method: 'POST', url: '/messages', headers: { ...auth, ...JSON_TYPE }, payload: JSON.stringify({ message: text }) });
            assert.equal(posted.statusCode, 202, posted.body);
            const fetched = await app.inject({ method: 'GET', url: String(posted.headers.location), headers: auth });
            assert.equal(fetched.json<{ message: string }>().message, text);
          },
        ),
        { numRuns: 60 },
      );
    });

    describe('hosts', () => {
      test('when the quickstart host is asked for store routes, then 404; a wrong method on /messages gets 405 with Allow', async (t) => {
        const { app, tenant } = await createTestQuickstartApp(t, backend);
        const { auth } = await tenant();
        const orders = await app.inject({ method: 'GET', url: '/v1/store/orders', headers: auth });
        assert.equal(orders.statusCode, 404);
        assert.equal(errorBody(orders).code, 'route_not_found');
        const health = await app.inject({ method: 'GET', url: '/healthz' });
        assert.equal(health.statusCode, 404);
        const put = await app.inject({ method: 'PUT', url: '/messages', headers: auth });
        assert.equal(put.statusCode, 405);
        assert.equal(errorBody(put).code, 'method_not_allowed');
        assert.equal(put.headers.allow, 'POST');
      });

      test('when the store host is asked for /messages, then 404', async (t) => {
        const { app, tenant } = await createTestApp(t, backend);
        const { auth } = await tenant();
        for (const url of ['/messages', '/v1/messages']) {
          const response = await app.inject({ method: 'POST', url, headers: { ...auth, ...JSON_TYPE }, payload: { message: 'x' } });
          assert.equal(response.statusCode, 404);
          assert.equal(errorBody(response).code, 'route_not_found');
        }
      });
    });

    describe('scopes, rate limits and hardening', () => {
      test('when a valid key lacks messages:write, then POST and GET /messages get 403 insufficient_scope and nothing is queued', async (t) => {
        const { app, storage, tenant } = await createTestQuickstartApp(t, backend);
        const writer = await tenant('Writer');
        const posted = await app.inject({ method: 'POST', url: '/messages', headers: { ...writer.auth, ...JSON_TYPE }, payload: { message: 'x' } });
        assert.equal(posted.statusCode, 202);
        const reader = await tenant('Reader', ['orders:read', 'orders:write', 'pets:read']);
        for (const request of [
          { method: 'POST' as const, url: '/messages', headers: { ...reader.auth, ...JSON_TYPE }, payload: { message: 'y' } },
          // The scope is checked before the body is read: a bad body still gets 403.
          { method: 'POST' as const, url: '/messages', headers: { ...reader.auth, 'content-type': 'text/plain' }, payload: '{' },
          // Reading back needs the same scope (there is no messages:read).
          { method: 'GET' as const, url: String(posted.headers.location), headers: reader.auth },
          { method: 'GET' as const, url: '/messages/unknown', headers: reader.auth },
        ]) {
          const response = await app.inject(request);
          assert.equal(response.statusCode, 403, `${request.method} ${request.url}`);
          assert.equal(errorBody(response).code, 'insufficient_scope');
          assert.equal(response.headers['www-authenticate'], 'Bearer realm="store-orders", error="insufficient_scope", scope="messages:write"');
        }
        const queued = await storage.messages.claimDue({ claimant: 'probe', now: '9999-12-31T00:00:00.000Z', claimedUntil: '9999-12-31T00:00:00.000Z', limit: 10 });
        assert.deepEqual(queued.map((m) => m.message), ['x']);
      });

      test('when a key holds only messages:write, then it may send and read messages but the store host refuses it 403', async (t) => {
        const { app, storage, services, tenant } = await createTestQuickstartApp(t, backend);
        const { auth } = await tenant('Messenger', ['messages:write']);
        const posted = await app.inject({ method: 'POST', url: '/messages', headers: { ...auth, ...JSON_TYPE }, payload: { message: 'x' } });
        assert.equal(posted.statusCode, 202);
        assert.equal((await app.inject({ method: 'GET', url: String(posted.headers.location), headers: auth })).statusCode, 200);
        const store = await buildTestStoreApp({ logger: createLogger('silent', new Writable({ write: (_c, _e, done) => done() })), services, storage });
        t.after(() => store.close());
        const orders = await store.inject({ method: 'GET', url: '/v1/store/orders', headers: auth });
        assert.equal(orders.statusCode, 403);
        assert.equal(errorBody(orders).code, 'insufficient_scope');
      });

      test('when a key exceeds its quota on POST /messages, then 429 rate_limited with Retry-After and RateLimit headers, nothing more is queued, and other keys are served', async (t) => {
        const { app, storage, tenant } = await createTestQuickstartApp(t, backend, { limits: limitOf(3) });
        const { auth } = await tenant();
        const other = await tenant();
        for (let i = 0; i < 3; i++) {
          const ok = await app.inject({ method: 'POST', url: '/messages', headers: { ...auth, ...JSON_TYPE }, payload: { message: `m${i}` } });
          assert.equal(ok.statusCode, 202);
          assert.equal(ok.headers['ratelimit-policy'], '"default";q=3;w=60');
          assert.match(String(ok.headers.ratelimit), new RegExp(`^"default";r=${2 - i};t=([1-9]|[1-5][0-9]|60)$`));
          assert.equal(ok.headers['retry-after'], undefined);
        }
        const refused = await app.inject({ method: 'POST', url: '/messages', headers: { ...auth, ...JSON_TYPE }, payload: { message: 'one too many' } });
        assert.equal(refused.statusCode, 429);
        assert.equal(errorBody(refused).code, 'rate_limited');
        assert.equal(refused.headers['ratelimit-policy'], '"default";q=3;w=60');
        assert.match(String(refused.headers.ratelimit), /^"default";r=0;t=[1-9][0-9]*$/);
        assert.match(String(refused.headers['retry-after']), /^[1-9][0-9]*$/);
        assert.equal(String(refused.headers.ratelimit).split('t=')[1], refused.headers['retry-after']);
        // GET shares the key's budget; another key has its own.
        assert.equal((await app.inject({ method: 'GET', url: '/messages/x', headers: auth })).statusCode, 429);
        assert.equal((await app.inject({ method: 'POST', url: '/messages', headers: { ...other.auth, ...JSON_TYPE }, payload: { message: 'other' } })).statusCode, 202);
        const queued = await storage.messages.claimDue({ claimant: 'probe', now: '9999-12-31T00:00:00.000Z', claimedUntil: '9999-12-31T00:00:00.000Z', limit: 10 });
        assert.deepEqual(queued.map((m) => m.message).sort(), ['m0', 'm1', 'm2', 'other']);
      });

      test('when invalid keys are tried from one address, then after the quota that address gets 429 instead of 401', async (t) => {
        const { app } = await createTestQuickstartApp(t, backend, { limits: limitOf(2) });
        for (let i = 0; i < 2; i++) {
          const guess = await app.inject({ method: 'POST', url: '/messages', headers: { authorization: 'Bearer nope', ...JSON_TYPE }, payload: { message: 'x' } });
          assert.equal(guess.statusCode, 401);
        }
        const blocked = await app.inject({ method: 'POST', url: '/messages', headers: { authorization: 'Bearer nope', ...JSON_TYPE }, payload: { message: 'x' } });
        assert.equal(blocked.statusCode, 429);
        assert.equal(errorBody(blocked).code, 'rate_limited');
        const elsewhere = await app.inject({ method: 'POST', url: '/messages', remoteAddress: '192.0.2.7', headers: JSON_TYPE, payload: { message: 'x' } });
        assert.equal(elsewhere.statusCode, 401, 'another address has its own budget');
      });

      test('when the store and quickstart hosts share one rate limiter (as in a server process), then a key has one budget across both', async (t) => {
        const limits = limitOf(3);
        const rateLimiter = createRateLimiter(limits.rateLimit);
        const { app, storage, services, tenant } = await createTestQuickstartApp(t, backend, { limits, rateLimiter });
        const store = await buildTestStoreApp({ logger: createLogger('silent', new Writable({ write: (_c, _e, done) => done() })), services, storage, config: { ...testConfig(), limits }, rateLimiter });
        t.after(() => store.close());
        const { auth } = await tenant();
        assert.equal((await store.inject({ method: 'GET', url: '/v1/store/orders', headers: auth })).statusCode, 200);
        assert.equal((await store.inject({ method: 'GET', url: '/v1/store/orders', headers: auth })).statusCode, 200);
        const last = await app.inject({ method: 'POST', url: '/messages', headers: { ...auth, ...JSON_TYPE }, payload: { message: 'x' } });
        assert.equal(last.statusCode, 202);
        assert.match(String(last.headers.ratelimit), /^"default";r=0;/);
        assert.equal((await app.inject({ method: 'POST', url: '/messages', headers: { ...auth, ...JSON_TYPE }, payload: { message: 'y' } })).statusCode, 429);
        assert.equal((await store.inject({ method: 'GET', url: '/v1/store/orders', headers: auth })).statusCode, 429);
      });

      test('when any response is sent by the quickstart host, then it carries the JSON API security headers, no-store and no X-Powered-By', async (t) => {
        const { app, tenant } = await createTestQuickstartApp(t, backend);
        const { auth } = await tenant();
        const posted = await app.inject({ method: 'POST', url: '/messages', headers: { ...auth, ...JSON_TYPE }, payload: { message: 'x' } });
        const responses = [
          posted,
          await app.inject({ method: 'GET', url: String(posted.headers.location), headers: auth }),
          await app.inject({ method: 'POST', url: '/messages', headers: JSON_TYPE, payload: { message: 'x' } }),
          await app.inject({ method: 'POST', url: '/messages', headers: { ...auth, 'content-type': 'text/plain' }, payload: 'x' }),
          await app.inject({ method: 'GET', url: '/nope' }),
        ];
        assert.deepEqual(responses.map((r) => r.statusCode), [202, 200, 401, 400, 404]);
        for (const response of responses) {
          const label = `${response.statusCode} ${response.body.slice(0, 40)}`;
          assert.equal(response.headers['x-content-type-options'], 'nosniff', label);
          assert.equal(response.headers['cache-control'], 'no-store', label);
          assert.equal(response.headers['content-security-policy'], "default-src 'none'; frame-ancestors 'none'", label);
          assert.equal(response.headers['x-frame-options'], 'DENY', label);
          assert.equal(response.headers['x-powered-by'], undefined, label);
        }
      });

      test('when the process is over its load bound, then POST /messages gets 503 overloaded with Retry-After', async (t) => {
        const limits: Limits = { ...TEST_LIMITS, loadShedding: { ...TEST_LIMITS.loadShedding, maxHeapUsedBytes: 1, sampleIntervalMs: 10 } };
        const { app, tenant } = await createTestQuickstartApp(t, backend, { limits });
        const { auth } = await tenant();
        await app.ready();
        while (!app.isUnderPressure()) await sleep(10);
        const shed = await app.inject({ method: 'POST', url: '/messages', headers: { ...auth, ...JSON_TYPE }, payload: { message: 'x' } });
        assert.equal(shed.statusCode, 503);
        assert.equal(errorBody(shed).code, 'overloaded');
        assert.equal(shed.headers['retry-after'], '5');
      });
    });

    test('when a message is posted, then the logs carry neither the API key nor the message text', async (t) => {
      const { app, logs, tenant } = await createTestQuickstartApp(t, backend);
      const { key, auth } = await tenant();
      await app.inject({ method: 'POST', url: '/messages', headers: { ...auth, ...JSON_TYPE }, payload: { message: 'secret-text-7f3a' } });
      await app.inject({ method: 'POST', url: '/messages', headers: { ...auth, 'content-type': 'text/plain' }, payload: 'secret-text-7f3a' });
      const all = logs.join('');
      assert.ok(all.length > 0);
      assert.ok(!all.includes(key));
      assert.ok(!all.includes('secret-text-7f3a'));
    });
  });
}
