/** The usage overview over real SQLite storage: which hours and days each window holds, and the figures read from the counters (error rate, percentiles from the histogram). */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { NewRequestLog } from '../../src/request-logs/request-logs-repository.js';
import { usageOfRequests } from '../../src/usage/usage-counters.js';
import { testServices } from '../support/container.js';
import { manualClock } from '../support/quickstart.js';
import { sqliteBackend } from '../support/storage.js';
import { storedRequests } from '../../src/request-logs/stored-requests.js';

const HOUR_MS = 3_600_000;
const NOW = Date.parse('2026-11-27T10:30:00.000Z');

test('when requests fall around the windows, then the last 24 hours and the 14 days each count those within them, with error rate and histogram percentiles', async (t) => {
  const { storage } = await sqliteBackend.freshDatabase(t);
  const clock = manualClock(new Date(NOW));
  const services = testServices(storage, { clock });
  const account = await storage.accounts.create({ name: 'Main Street Pets', createdAt: new Date(NOW).toISOString() });
  const at = (ms: number) => new Date(NOW + ms).toISOString();
  const request = (ms: number, status: number, durationMs: number): NewRequestLog => ({ accountId: account.id, at: at(ms), method: 'GET', path: '/v1/store/orders', status, durationMs, requestId: `r${ms}${status}` });
  const batch = [
    // This hour: nine fast answers and a very slow one.
    ...Array.from({ length: 9 }, (_v, i) => request(-i * 1000, 200, 0.5)),
    request(-20_000, 503, 6000),
    // The first hour of the 24: 11:00 yesterday, 23 hours before this one.
    request(-23 * HOUR_MS, 404, 40),
    // Just before the 24 hours: in the days only.
    request(-24 * HOUR_MS - 1, 201, 1),
    // 13 days ago at 00:00: the first day. 14 days ago: in neither.
    request(-13 * 24 * HOUR_MS - 10.5 * HOUR_MS, 200, 2),
    request(-14 * 24 * HOUR_MS, 200, 2),
  ];
  await storage.requestLogs.append(storedRequests(batch), usageOfRequests(storedRequests(batch)));

  const overview = await services.usage.overview(account.id);
  assert.equal(overview.hours.length, 24);
  assert.equal(overview.days.length, 14);
  assert.equal(overview.hours[0]?.start, '2026-11-26T11:00:00.000Z');
  assert.equal(overview.hours[23]?.start, '2026-11-27T10:00:00.000Z');
  assert.equal(overview.days[0]?.start, '2026-11-14T00:00:00.000Z');
  assert.equal(overview.days[13]?.start, '2026-11-27T00:00:00.000Z');

  const current = overview.hours[23];
  assert.deepEqual(current?.requests, { '2xx': 9, '3xx': 0, '4xx': 0, '5xx': 1 });
  assert.equal(current?.errorRate, 0.1);
  assert.deepEqual(current?.p50, { ms: 1, over: false });
  assert.deepEqual(current?.p95, { ms: 5000, over: true }, 'the tenth of ten requests took over 5000 ms');
  assert.deepEqual(overview.hours[0]?.requests, { '2xx': 0, '3xx': 0, '4xx': 1, '5xx': 0 });
  assert.deepEqual(overview.hours[0]?.p50, { ms: 50, over: false });
  assert.equal(overview.lastDay.total, 11);
  assert.equal(overview.hours[5]?.errorRate, null);
  assert.equal(overview.hours[5]?.p95, null);

  assert.equal(overview.lastFortnight.total, 13, 'the 24 hours, the request just before them, and the first day');
  assert.equal(overview.days[0]?.total, 1);
  assert.equal(overview.days[13]?.total, 10);
  assert.equal(overview.days[12]?.total, 2);
});
