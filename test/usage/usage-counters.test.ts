/** What a batch of logged requests adds to the account-hours' counters: counted per account and hour, whatever the order. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { usageOfRequests } from '../../src/usage/usage-counters.js';

test('when requests of several accounts and hours come interleaved, in runs and in other time forms, then each account-hour counts exactly its own', () => {
  const base = Date.parse('2026-11-27T09:59:59.000Z');
  // Runs of a few requests of one account and hour (as a flush sees them), accounts and hours changing between runs.
  const requests = Array.from({ length: 600 }, (_, i) => {
    const ms = base + Math.floor(i / 4) * 97 + (Math.floor(i / 9) % 3) * 3_600_000;
    const iso = new Date(ms).toISOString();
    // Now and then the same kind of text in another form: an offset (24 characters too, one hour earlier in UTC), no milliseconds.
    const at = i % 17 === 5 ? `${iso.slice(0, 19)}+0100` : i % 23 === 7 ? `${iso.slice(0, 19)}Z` : iso;
    return { accountId: Math.floor(i / 6) % 3 === 0 ? 2 : 1, at, status: i % 7 === 0 ? 404 : 200, durationMs: i % 2 };
  });
  const expected = new Map<string, number>();
  for (const request of requests) {
    const hour = new Date(Math.floor(Date.parse(request.at) / 3_600_000) * 3_600_000).toISOString();
    const key = `${request.accountId} ${hour}`;
    expected.set(key, (expected.get(key) ?? 0) + 1);
  }
  const increments = usageOfRequests(requests);
  const counted = new Map(increments.map((increment) => [`${increment.accountId} ${increment.hour}`, (increment.counts.requests_2xx ?? 0) + (increment.counts.requests_4xx ?? 0)]));
  assert.deepEqual(counted, new Map([...expected].sort(([a], [b]) => (a < b ? -1 : 1))));
  assert.ok(expected.size >= 8, 'several accounts and hours');
});
