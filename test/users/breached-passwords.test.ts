/**
 * The breached-password check (PORTAL_BREACHED_PASSWORDS_URL) against a real
 * HTTP server on loopback that answers as the Pwned Passwords range API
 * does: `SUFFIX:COUNT` lines under a 5-character SHA-1 prefix, padded with
 * count-0 entries. Then the portal refuses a breached password at sign-up,
 * at a password change and at a reset, and lets one through, counted, when
 * the service does not answer.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, test, type TestContext } from 'node:test';
import { Registry } from 'prom-client';
import { createServiceMetrics } from '../../src/observability/service-metrics.js';
import { createBreachedPasswordCheck } from '../../src/users/breached-passwords.js';
import { testConfig } from '../support/container.js';
import { createTestPortal, pageText, signUp, TEST_PASSWORD } from '../support/portal.js';
import { httpBackends } from '../support/storage.js';

const BREACHED = 'correct horse battery staple 1';
const PADDED = 'a password listed only as padding';
const sha1 = (text: string) => createHash('sha1').update(text).digest('hex').toUpperCase();

interface RangeServer {
  url: string;
  asked: { path: string; headers: IncomingHttpHeaders }[];
}

/** A range API on loopback knowing BREACHED (seen 42 times) and PADDED (count 0, as padding), plus filler; `answer` overrides the status or stalls. */
async function rangeServer(t: TestContext, answer: 'ok' | 'error' | 'stall' = 'ok'): Promise<RangeServer> {
  const asked: RangeServer['asked'] = [];
  const server = createServer((request, response) => {
    asked.push({ path: request.url ?? '', headers: request.headers });
    if (answer === 'stall') return;
    if (answer === 'error') return response.writeHead(503).end('busy');
    const prefix = (request.url ?? '').split('/').pop() ?? '';
    const lines = [BREACHED, PADDED].filter((password) => sha1(password).startsWith(prefix)).map((password) => `${sha1(password).slice(5)}:${password === BREACHED ? 42 : 0}`);
    for (let filler = 0; filler < 50; filler++) lines.push(`${filler.toString(16).toUpperCase().padStart(35, '0')}:${filler % 3}`);
    response.writeHead(200, { 'content-type': 'text/plain' }).end(lines.sort().join('\r\n'));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(() => new Promise<void>((resolve) => server.close(() => resolve())));
  t.after(() => server.closeAllConnections());
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/range/`, asked };
}

describe('breached-password check', () => {
  test('when a password is listed with a count, then it is breached; listed with 0 (padding) or not listed, clean; only the 5-character prefix left, padding asked', async (t) => {
    const range = await rangeServer(t);
    const check = createBreachedPasswordCheck({ rangeUrl: range.url, timeoutMs: 2000 });
    assert.equal(await check(BREACHED), 'breached');
    assert.equal(await check(PADDED), 'clean');
    assert.equal(await check('nobody has ever used this one 9f3k'), 'clean');
    assert.deepEqual(
      range.asked.map((one) => one.path),
      [BREACHED, PADDED, 'nobody has ever used this one 9f3k'].map((password) => `/range/${sha1(password).slice(0, 5)}`),
    );
    for (const one of range.asked) assert.equal(one.headers['add-padding'], 'true');
    assert.ok(!JSON.stringify(range.asked).includes(sha1(BREACHED).slice(5)), 'the rest of the hash never leaves');
  });

  test('when the configured URL does not end in a slash, then the configuration is refused, naming the variable', () => {
    assert.throws(() => testConfig({ PORTAL_BREACHED_PASSWORDS_URL: 'https://api.pwnedpasswords.com/range' }), /PORTAL_BREACHED_PASSWORDS_URL must be an absolute http\(s\) URL ending in \//);
    assert.equal(testConfig({ PORTAL_BREACHED_PASSWORDS_URL: 'https://api.pwnedpasswords.com/range/' }).portal.breachedPasswords?.rangeUrl, 'https://api.pwnedpasswords.com/range/');
  });

  test('when the service answers an error or nothing in time, then the check is unavailable, and the metric counts each result', async (t) => {
    const registry = new Registry();
    const metrics = createServiceMetrics(registry);
    const failing = metrics.breachedPasswordChecks(createBreachedPasswordCheck({ rangeUrl: (await rangeServer(t, 'error')).url, timeoutMs: 2000 }));
    assert.equal(await failing(BREACHED), 'unavailable');
    const stalled = metrics.breachedPasswordChecks(createBreachedPasswordCheck({ rangeUrl: (await rangeServer(t, 'stall')).url, timeoutMs: 200 }));
    assert.equal(await stalled(BREACHED), 'unavailable');
    const answering = metrics.breachedPasswordChecks(createBreachedPasswordCheck({ rangeUrl: (await rangeServer(t)).url, timeoutMs: 2000 }));
    assert.equal(await answering(BREACHED), 'breached');
    const text = await registry.metrics();
    assert.match(text, /store_breached_password_checks_total\{result="unavailable"\} 2/);
    assert.match(text, /store_breached_password_checks_total\{result="breached"\} 1/);
  });
});

for (const backend of httpBackends()) {
  describe(`breached passwords in the portal: ${backend.name}`, () => {
    test('when a breached password is chosen at sign-up, at a password change or at a reset, then it is refused in words; another is accepted', async (t) => {
      const range = await rangeServer(t);
      const portal = await createTestPortal(t, backend, { env: { PORTAL_BREACHED_PASSWORDS_URL: range.url } });
      const visitor = portal.client();
      const refused = await visitor.post('/sign-up', { email: 'new@example.com', password: BREACHED, storeName: 'Breach Pets' }, {}, '/sign-up');
      assert.equal(refused.statusCode, 400);
      assert.match(pageText(refused.body), /This password appears in known data breaches/);

      const { client, email } = await signUp(portal);
      const change = await client.post('/settings/password', { currentPassword: TEST_PASSWORD, newPassword: BREACHED }, {}, '/settings');
      assert.equal(change.statusCode, 400);
      assert.match(pageText(change.body), /appears in known data breaches/);
      const changed = await client.post('/settings/password', { currentPassword: TEST_PASSWORD, newPassword: 'nobody has ever used this one 9f3k' }, {}, '/settings');
      assert.equal(changed.statusCode, 200, pageText(changed.body));

      const reset = await portal.services.users.createPasswordReset(email);
      assert.ok(reset !== undefined);
      const resetRefused = await portal.client().post('/reset-password', { token: reset.token, password: BREACHED }, {}, `/reset-password?token=${reset.token}`);
      assert.equal(resetRefused.statusCode, 400);
      assert.match(pageText(resetRefused.body), /appears in known data breaches/);
      assert.ok(!portal.logs.join('').includes(BREACHED), 'the password is never logged');
    });

    test('when the breached-password service does not answer, then the sign-up goes on (the check fails open)', async (t) => {
      const range = await rangeServer(t, 'error');
      const portal = await createTestPortal(t, backend, { env: { PORTAL_BREACHED_PASSWORDS_URL: range.url } });
      const answer = await portal.client().post('/sign-up', { email: 'new@example.com', password: BREACHED, storeName: 'Breach Pets' }, {}, '/sign-up');
      assert.equal(answer.statusCode, 200, pageText(answer.body));
      assert.match(pageText(answer.body), /Check your email to continue/);
      assert.equal(range.asked.length, 1);
    });
  });
}
