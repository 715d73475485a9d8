/** What a batch of logged requests adds to the account-hours' counters: counted per account and hour, whatever the order. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { usageOfRequests } from '../../src/usage/usage-counters.js';

test('when requests of several accounts and hours come interleaved and in runs, then each account-hour counts exactly its own', () => {
  const base = Date.parse('2026-11-27T09:59:59.000Z');
  // Runs of a few requests of one account and hour (as a flush sees them), accounts and hours changing between runs.
  const requests = Array.from({ length: 600 }, (_, i) => {
    const ms = base + Math.floor(i / 4) * 97 + (Math.floor(i / 9) % 3) * 3_600_000;
    // Now and then out of order by an hour, as a slow request written with the next flush's.
    const at = i % 17 === 5 ? ms - 3_600_000 : ms;
    return { accountId: Math.floor(i / 6) % 3 === 0 ? 2 : 1, at, status: i % 7 === 0 ? 404 : 200, durationMs: i % 2 };
  });
  const expected = new Map<string, number>();
  for (const request of requests) {
    const hour = new Date(Math.floor(request.at / 3_600_000) * 3_600_000).toISOString();
    const key = `${request.accountId} ${hour}`;
    expected.set(key, (expected.get(key) ?? 0) + 1);
  }
  const column = (read: (request: (typeof requests)[number]) => number) => Float64Array.from(requests, read);
  const increments = usageOfRequests({ length: requests.length, accountId: column((r) => r.accountId), at: column((r) => r.at), status: column((r) => r.status), durationMs: column((r) => r.durationMs) });
  const counted = new Map(increments.map((increment) => [`${increment.accountId} ${increment.hour}`, (increment.counts.requests_2xx ?? 0) + (increment.counts.requests_4xx ?? 0)]));
  assert.deepEqual(counted, new Map([...expected].sort(([a], [b]) => (a < b ? -1 : 1))));
  assert.ok(expected.size >= 8, 'several accounts and hours');
});

test('when requests arrive on either side of an hour, before 1970 too, then each counts in the hour it arrived in', () => {
  const at = [-3_600_001, -1, 0, 3_599_999, 3_600_000];
  const increments = usageOfRequests({ length: at.length, accountId: Float64Array.from(at, () => 1), at: Float64Array.from(at), status: Float64Array.from(at, () => 200), durationMs: Float64Array.from(at, () => 1) });
  assert.deepEqual(
    increments.map((increment) => [increment.hour, increment.counts.requests_2xx]),
    [
      ['1969-12-31T22:00:00.000Z', 1],
      ['1969-12-31T23:00:00.000Z', 1],
      ['1970-01-01T00:00:00.000Z', 2],
      ['1970-01-01T01:00:00.000Z', 1],
    ],
  );
});

test('when requests of every status class and latency come in, then each counts once in its class and once in its bucket', () => {
  const cases: [number, number, string, string][] = [
    [101, 0.5, 'requests_2xx', 'latency_le_1'],
    [204, 1, 'requests_2xx', 'latency_le_1'],
    [304, 1.001, 'requests_3xx', 'latency_le_2'],
    [404, 799.9, 'requests_4xx', 'latency_le_800'],
    [503, 5000, 'requests_5xx', 'latency_le_5000'],
    [600, 5000.001, 'requests_5xx', 'latency_over'],
    [200, Number.NaN, 'requests_2xx', 'latency_over'],
  ];
  for (const [status, durationMs, statusCounter, latencyCounter] of cases) {
    const [increment] = usageOfRequests({ length: 1, accountId: [1], at: [0], status: [status], durationMs: [durationMs] });
    assert.deepEqual(increment?.counts, { [statusCounter]: 1, [latencyCounter]: 1 }, `${status} in ${durationMs} ms`);
  }
});
