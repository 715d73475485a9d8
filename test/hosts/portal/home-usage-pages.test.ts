/** The home page's usage at a glance over real requests, on SQLite: the charts' numbers are the requests the store host answered, by window, and go with the logs' retention. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildTestStoreApp } from '../../support/app.js';
import { capturingLogger } from '../../support/logs.js';
import { accountOf, createTestPortal, pageText, signUp, TEST_PASSWORD, type TestPortal } from '../../support/portal.js';
import { sqliteBackend } from '../../support/storage.js';
import { LATENCY_BOUNDS_MS } from '../../../src/usage/usage-counters.js';

const DAY_MS = 86_400_000;

/** The home page as `email` sees it, signed in afresh (the clock moves past a session's lifetime). */
async function homeOf(portal: TestPortal, email: string): Promise<string> {
  const client = portal.client();
  assert.equal((await client.post('/sign-in', { email, password: TEST_PASSWORD }, {}, '/sign-in')).statusCode, 303);
  const home = await client.get('/');
  assert.equal(home.statusCode, 200);
  return home.body;
}

/** The text of each chart's figcaption on the page, by chart id. */
function summaries(html: string): Map<string, string> {
  return new Map([...html.matchAll(/<figure class="chart" id="([^"]+)">\s*<figcaption>([\s\S]*?)<\/figcaption>/g)].map((m) => [m[1] ?? '', pageText(m[2] ?? '')]));
}

/** What the histogram says of the `quantile` of these durations: the smallest bound at or above it. */
function expectedPercentile(durations: readonly number[], quantile: number): string {
  const sorted = [...durations].sort((a, b) => a - b);
  const value = sorted[Math.ceil(quantile * sorted.length) - 1] ?? 0;
  const bound = LATENCY_BOUNDS_MS.find((b) => value <= b);
  return bound === undefined ? 'over 5000 ms' : `≤ ${bound} ms`;
}

test('when a key makes requests of known statuses, then the home page charts count exactly those, by status class, with their error rate and latency, until the logs retention prunes them', async (t) => {
  const portal = await createTestPortal(t, sqliteBackend);
  const { client, email } = await signUp(portal);
  const accountId = await accountOf(portal, email);
  const { secret } = await portal.services.apiKeys.createKey({ accountId, name: 'checkout' });
  const { email: otherEmail } = await signUp(portal, { storeName: 'Harbour Pets' });
  const other = await portal.services.apiKeys.createKey({ accountId: await accountOf(portal, otherEmail), name: 'theirs' });
  const store = await buildTestStoreApp({ logger: capturingLogger().logger, services: portal.services, storage: portal.storage });
  t.after(() => store.close());

  const made: [string, string, number][] = [
    ['GET', '/v1/store/orders', 200],
    ['GET', '/v1/store/orders', 200],
    ['GET', '/v2/store/orders', 200],
    ['DELETE', '/v1/store/orders/424242', 404],
    ['GET', '/v2/store/orders/424243', 404],
    ['DELETE', '/v1/store/orders/not-a-number', 400],
  ];
  for (const [method, url, status] of made) {
    const response = await store.inject({ method: method as 'GET' | 'DELETE', url, headers: { authorization: `Bearer ${secret}` } });
    assert.equal(response.statusCode, status, `${method} ${url}`);
  }
  assert.equal((await store.inject({ method: 'GET', url: '/v1/store/orders', headers: { authorization: `Bearer ${other.secret}` } })).statusCode, 200);
  await portal.services.requestLogRecorder.flush();

  const logged = await portal.storage.requestLogs.listPage({ accountId, filters: {}, limit: 100 });
  assert.equal(logged.length, made.length);
  const durations = logged.map((entry) => entry.durationMs);
  const latency = `p50 ${expectedPercentile(durations, 0.5)}, p95 ${expectedPercentile(durations, 0.95)}.`;

  const home = await client.get('/');
  assert.equal(home.statusCode, 200);
  const shown = summaries(home.body);
  for (const window of ['usage-day', 'usage-fortnight']) {
    assert.equal(shown.get(`${window}-requests`), 'Requests by status. 6 requests: 3 2xx, 0 3xx, 3 4xx, 0 5xx.', window);
    assert.equal(shown.get(`${window}-errors`), 'Error rate. Error rate 50 %: 3 of 6 requests answered 4xx or 5xx.', window);
    assert.equal(shown.get(`${window}-latency`), `Latency. ${latency}`, window);
    assert.equal(shown.get(`${window}-deliveries`), 'Webhook deliveries. 0 succeeded, 0 failed (given up after every retry); 0 failed attempts will be retried.', window);
  }
  // The current hour's row of the table: the same six requests.
  const hour = new Date(portal.clock.now().getTime()).toISOString();
  const row = new RegExp(`<th scope="row" class="date" data-label="Hour \\(UTC\\)">${hour.slice(0, 10)} ${hour.slice(11, 13)}:00</th><td data-label="2xx">3</td><td data-label="3xx">0</td><td data-label="4xx">3</td><td data-label="5xx">0</td><td data-label="Error rate">50 %</td>`);
  assert.match(home.body, row);
  assert.equal((home.body.match(/<svg viewBox/g) ?? []).length, 8, 'four charts a window');

  // A day later the last 24 hours are empty and the 14 days still count them.
  portal.clock.advance(DAY_MS + 3_600_000);
  const later = summaries(await homeOf(portal, email));
  assert.equal(later.get('usage-day-requests'), 'Requests by status. No requests.');
  assert.equal(later.get('usage-fortnight-requests'), 'Requests by status. 6 requests: 3 2xx, 0 3xx, 3 4xx, 0 5xx.');

  // Past the logs' retention (14 days), the counters are pruned with the logs.
  portal.clock.advance(15 * DAY_MS);
  assert.ok((await portal.services.requestLogs.pruneExpired(1000)) >= made.length + 1);
  assert.deepEqual(await portal.storage.usage.listHours(accountId, new Date(0).toISOString(), portal.clock.now().toISOString()), []);
  assert.equal(summaries(await homeOf(portal, email)).get('usage-fortnight-requests'), 'Requests by status. No requests.');
});
