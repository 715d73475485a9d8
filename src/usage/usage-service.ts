import type { Clock } from '../shared/clock.js';
import { LATENCY_BOUNDS_MS, STATUS_CLASSES, USAGE_COUNTERS, type StatusClass, type UsageCounter, type UsageHour } from './usage-counters.js';
import type { UsageRepository } from './usage-repository.js';

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
/** The overview's windows: the last 24 hours by hour, the last 14 days (today's included) by day. */
const HOURS_SHOWN = 24;
const DAYS_SHOWN = 14;

/**
 * A latency percentile as the histogram gives it: `ms` is the upper bound of
 * the bucket holding it (the percentile is at most that), or, when `over`,
 * the last bound (the percentile is above it).
 */
export interface LatencyPercentile {
  ms: number;
  over: boolean;
}

/** One hour or one day of an account's usage. */
export interface UsagePeriod {
  /** The period's start, ISO 8601 UTC. */
  start: string;
  requests: Record<StatusClass, number>;
  total: number;
  /** The share of 4xx and 5xx answers among all requests (0 to 1); null without requests. */
  errorRate: number | null;
  p50: LatencyPercentile | null;
  p95: LatencyPercentile | null;
  deliveriesSucceeded: number;
  /** Deliveries given up (every attempt failed). */
  deliveriesFailed: number;
  /** Failed attempts that will be retried. */
  deliveryAttemptsFailed: number;
}

export interface UsageOverview {
  /** The last 24 hours, oldest first, the current (partial) hour last. */
  hours: UsagePeriod[];
  /** The last 14 days (UTC), oldest first, today (partial) last. */
  days: UsagePeriod[];
  /** Each window's periods added up. */
  lastDay: UsagePeriod;
  lastFortnight: UsagePeriod;
}

function zeroCounts(): Record<UsageCounter, number> {
  return Object.fromEntries(USAGE_COUNTERS.map((counter) => [counter, 0])) as Record<UsageCounter, number>;
}

/** The smallest bucket bound with at least `quantile` of the requests at or below it. */
function percentile(counts: Record<UsageCounter, number>, total: number, quantile: number): LatencyPercentile | null {
  if (total === 0) return null;
  const rank = Math.ceil(quantile * total);
  let seen = 0;
  for (const bound of LATENCY_BOUNDS_MS) {
    seen += counts[`latency_le_${bound}`];
    if (seen >= rank) return { ms: bound, over: false };
  }
  return { ms: LATENCY_BOUNDS_MS[LATENCY_BOUNDS_MS.length - 1] ?? 0, over: true };
}

/** A period's figures from its counters. */
function toUsagePeriod(start: string, counts: Record<UsageCounter, number>): UsagePeriod {
  const requests = Object.fromEntries(STATUS_CLASSES.map((c) => [c, counts[`requests_${c}`]])) as Record<StatusClass, number>;
  const total = STATUS_CLASSES.reduce((sum, c) => sum + requests[c], 0);
  return {
    start,
    requests,
    total,
    errorRate: total === 0 ? null : (requests['4xx'] + requests['5xx']) / total,
    p50: percentile(counts, total, 0.5),
    p95: percentile(counts, total, 0.95),
    deliveriesSucceeded: counts.deliveries_succeeded,
    deliveriesFailed: counts.deliveries_failed,
    deliveryAttemptsFailed: counts.delivery_attempts_failed,
  };
}

function add(into: Record<UsageCounter, number>, counts: Record<UsageCounter, number>): void {
  for (const counter of USAGE_COUNTERS) into[counter] += counts[counter];
}

/**
 * An account's usage at a glance, from the counters kept per account and
 * hour (never from the raw request logs): requests by status class, error
 * rate, p50/p95 latency and webhook deliveries, by hour and by day (UTC).
 */
export function createUsageService({ usageRepository, clock }: { usageRepository: UsageRepository; clock: Clock }) {
  return {
    async overview(accountId: number): Promise<UsageOverview> {
      const nowMs = clock.now().getTime();
      const hourStart = nowMs - (nowMs % HOUR_MS);
      const dayStart = nowMs - (nowMs % DAY_MS);
      const firstHour = hourStart - (HOURS_SHOWN - 1) * HOUR_MS;
      const firstDay = dayStart - (DAYS_SHOWN - 1) * DAY_MS;
      const until = new Date(hourStart + HOUR_MS).toISOString();
      const rows: UsageHour[] = await usageRepository.listHours(accountId, new Date(Math.min(firstHour, firstDay)).toISOString(), until);
      const hourly = Array.from({ length: HOURS_SHOWN }, zeroCounts);
      const daily = Array.from({ length: DAYS_SHOWN }, zeroCounts);
      for (const row of rows) {
        const ms = Date.parse(row.hour);
        const h = hourly[Math.floor((ms - firstHour) / HOUR_MS)];
        if (ms >= firstHour && h !== undefined) add(h, row.counts);
        const d = daily[Math.floor((ms - firstDay) / DAY_MS)];
        if (ms >= firstDay && d !== undefined) add(d, row.counts);
      }
      const sum = (periods: Record<UsageCounter, number>[]) => {
        const total = zeroCounts();
        for (const counts of periods) add(total, counts);
        return total;
      };
      return {
        hours: hourly.map((counts, i) => toUsagePeriod(new Date(firstHour + i * HOUR_MS).toISOString(), counts)),
        days: daily.map((counts, i) => toUsagePeriod(new Date(firstDay + i * DAY_MS).toISOString(), counts)),
        lastDay: toUsagePeriod(new Date(firstHour).toISOString(), sum(hourly)),
        lastFortnight: toUsagePeriod(new Date(firstDay).toISOString(), sum(daily)),
      };
    },
  };
}

export type UsageService = ReturnType<typeof createUsageService>;
