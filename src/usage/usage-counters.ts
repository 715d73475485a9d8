import type { Outcome } from '../delivery/delivery-queue.js';

/**
 * Upper bounds (inclusive, milliseconds) of the latency histogram's buckets,
 * each at most twice the one before; a last bucket takes anything slower.
 * A percentile read from them is the bound of the bucket that holds it: an
 * upper bound of the true value, at most one bucket (a factor of 2, mostly
 * about 1.6) above it (docs/request-logs.md).
 */
export const LATENCY_BOUNDS_MS = [1, 2, 3, 5, 8, 13, 20, 30, 50, 80, 130, 200, 300, 500, 800, 1300, 2000, 3000, 5000] as const;

/** The status classes counted: 1xx (never a final answer of ours) is counted with 2xx, anything above 5xx with 5xx. */
export const STATUS_CLASSES = ['2xx', '3xx', '4xx', '5xx'] as const;
export type StatusClass = (typeof STATUS_CLASSES)[number];

/** The counters of one account-hour, in column order (the usage_hours table's columns, migration 0024). */
export const USAGE_COUNTERS = [
  ...STATUS_CLASSES.map((c) => `requests_${c}` as const),
  ...LATENCY_BOUNDS_MS.map((bound) => `latency_le_${bound}` as const),
  'latency_over',
  'deliveries_succeeded',
  'deliveries_failed',
  'delivery_attempts_failed',
] as const;
export type UsageCounter = (typeof USAGE_COUNTERS)[number];

/** What to add to one account-hour's counters (absent: nothing). */
export interface UsageIncrement {
  accountId: number;
  /** The hour's start, ISO 8601 UTC with milliseconds (2026-11-27T10:00:00.000Z). */
  hour: string;
  counts: Partial<Record<UsageCounter, number>>;
}

/** An account-hour's counters as stored. */
export interface UsageHour {
  hour: string;
  counts: Record<UsageCounter, number>;
}

const HOUR_MS = 3_600_000;

/** The start of the UTC hour `at` (ISO 8601) falls in. */
function hourOf(at: string): string {
  // The stored form (toISOString: 2026-11-27T10:42:17.123Z) is cut, not parsed.
  if (at.length === 24 && at[10] === 'T' && at.endsWith('Z')) return `${at.slice(0, 13)}:00:00.000Z`;
  const ms = Date.parse(at);
  return new Date(ms - (((ms % HOUR_MS) + HOUR_MS) % HOUR_MS)).toISOString();
}

/** The index in USAGE_COUNTERS of a status's class counter (1xx with 2xx, above 5xx with 5xx). */
function statusIndexOf(status: number): number {
  return status < 300 ? 0 : status < 400 ? 1 : status < 500 ? 2 : 3;
}

/** The index in USAGE_COUNTERS of a duration's latency bucket (the buckets follow the status classes). */
function latencyIndexOf(durationMs: number): number {
  let bucket = 0;
  while (bucket < LATENCY_BOUNDS_MS.length && !(durationMs <= (LATENCY_BOUNDS_MS[bucket] as number))) bucket++;
  return STATUS_CLASSES.length + bucket;
}

/**
 * What a batch of logged requests (column by column, as StoredRequests in
 * request-logs-repository.ts) adds: per account and hour, one request
 * to its status class and one to its latency bucket. Sorted by account and
 * hour, so that concurrent writers lock the same rows in the same order.
 * Counted into an array per account-hour, by counter index: counters kept
 * by name cost the flush 0.1 µs per request (BENCHMARKS.md, fifteenth
 * session).
 */
export function usageOfRequests(requests: {
  length: number;
  accountId: ArrayLike<number>;
  /** Epoch milliseconds. */
  at: ArrayLike<number>;
  status: ArrayLike<number>;
  durationMs: ArrayLike<number>;
}): UsageIncrement[] {
  const byKey = new Map<string, { accountId: number; hour: string; counted: Float64Array }>();
  // Requests come in runs of one account and one hour: the last one's counters serve the next, with no key made.
  let lastAccount = Number.NaN;
  let lastHour = Number.NaN;
  let counted: Float64Array = new Float64Array(0);
  for (let n = 0; n < requests.length; n++) {
    const accountId = requests.accountId[n] as number;
    const at = requests.at[n] as number;
    // Still the last one's hour: two comparisons, where the hour's start (two remainders of a double) cost 0.05-0.1 µs per request (BENCHMARKS.md, sixteenth session).
    if (accountId !== lastAccount || !(at >= lastHour && at < lastHour + HOUR_MS)) {
      const hourStart = at - (((at % HOUR_MS) + HOUR_MS) % HOUR_MS);
      const hour = new Date(hourStart).toISOString();
      const key = `${accountId} ${hour}`;
      let own = byKey.get(key);
      if (own === undefined) byKey.set(key, (own = { accountId, hour, counted: new Float64Array(USAGE_COUNTERS.length) }));
      [lastAccount, lastHour, counted] = [accountId, hourStart, own.counted];
    }
    const status = statusIndexOf(requests.status[n] as number);
    const latency = latencyIndexOf(requests.durationMs[n] as number);
    counted[status] = (counted[status] as number) + 1;
    counted[latency] = (counted[latency] as number) + 1;
  }
  const increments = [...byKey.values()].map(({ accountId, hour, counted: own }): UsageIncrement => {
    const counts: UsageIncrement['counts'] = {};
    own.forEach((count, index) => {
      if (count > 0) counts[USAGE_COUNTERS[index] as UsageCounter] = count;
    });
    return { accountId, hour, counts };
  });
  return increments.sort((a, b) => a.accountId - b.accountId || (a.hour < b.hour ? -1 : a.hour > b.hour ? 1 : 0));
}

/**
 * What a webhook delivery's settled attempt adds to its endpoint's account,
 * in the hour it ended: a success, a delivery given up (failed for good), or
 * a failed attempt that will be retried. The adapter writes it with the
 * settlement, in its transaction, for the account of the delivery's endpoint.
 */
export function usageOfDelivery(outcome: Outcome): Omit<UsageIncrement, 'accountId'> {
  const counter: UsageCounter = outcome.sent ? 'deliveries_succeeded' : outcome.settlement.retryAt === undefined ? 'deliveries_failed' : 'delivery_attempts_failed';
  return { hour: hourOf(outcome.settlement.at), counts: { [counter]: 1 } };
}
