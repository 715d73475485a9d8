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

const STATUS_COUNTERS = { '2xx': 'requests_2xx', '3xx': 'requests_3xx', '4xx': 'requests_4xx', '5xx': 'requests_5xx' } as const satisfies Record<StatusClass, UsageCounter>;
const LATENCY_COUNTERS = LATENCY_BOUNDS_MS.map((bound) => `latency_le_${bound}` as const);

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
  // The stored form (toISOString: 2026-11-27T10:42:17.123Z) is cut, not parsed: this runs for every logged request.
  if (at.length === 24 && at[10] === 'T' && at.endsWith('Z')) return `${at.slice(0, 13)}:00:00.000Z`;
  const ms = Date.parse(at);
  return new Date(ms - (((ms % HOUR_MS) + HOUR_MS) % HOUR_MS)).toISOString();
}

function statusClassOf(status: number): StatusClass {
  if (status < 300) return '2xx';
  if (status < 400) return '3xx';
  if (status < 500) return '4xx';
  return '5xx';
}

/** The latency bucket a duration falls in. */
function latencyCounterOf(durationMs: number): UsageCounter {
  const index = LATENCY_BOUNDS_MS.findIndex((b) => durationMs <= b);
  return LATENCY_COUNTERS[index] ?? 'latency_over';
}

/**
 * What a batch of logged requests (column by column, as StoredRequests in
 * request-logs-repository.ts) adds: per account and hour, one request
 * to its status class and one to its latency bucket. Sorted by account and
 * hour, so that concurrent writers lock the same rows in the same order.
 */
export function usageOfRequests(requests: {
  length: number;
  accountId: ArrayLike<number>;
  /** Epoch milliseconds. */
  at: ArrayLike<number>;
  status: ArrayLike<number>;
  durationMs: ArrayLike<number>;
}): UsageIncrement[] {
  const byKey = new Map<string, UsageIncrement>();
  // Requests come in runs of one account and one hour: the last one's increment serves the next, with no key made.
  let lastAccount = Number.NaN;
  let lastHour = Number.NaN;
  let increment: UsageIncrement | undefined;
  for (let n = 0; n < requests.length; n++) {
    const accountId = requests.accountId[n] as number;
    const at = requests.at[n] as number;
    const hourStart = at - (((at % HOUR_MS) + HOUR_MS) % HOUR_MS);
    if (increment === undefined || accountId !== lastAccount || hourStart !== lastHour) {
      const hour = new Date(hourStart).toISOString();
      const key = `${accountId} ${hour}`;
      increment = byKey.get(key);
      if (increment === undefined) {
        increment = { accountId, hour, counts: {} };
        byKey.set(key, increment);
      }
      lastAccount = accountId;
      lastHour = hourStart;
    }
    const { counts } = increment;
    const statusCounter = STATUS_COUNTERS[statusClassOf(requests.status[n] as number)];
    const latencyCounter = latencyCounterOf(requests.durationMs[n] as number);
    counts[statusCounter] = (counts[statusCounter] ?? 0) + 1;
    counts[latencyCounter] = (counts[latencyCounter] ?? 0) + 1;
  }
  return [...byKey.values()].sort((a, b) => a.accountId - b.accountId || (a.hour < b.hour ? -1 : a.hour > b.hour ? 1 : 0));
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
