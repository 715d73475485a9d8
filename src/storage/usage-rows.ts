import { USAGE_COUNTERS, type UsageCounter, type UsageHour, type UsageIncrement } from '../usage/usage-counters.js';

/** The counter columns of usage_hours, in USAGE_COUNTERS order. */
export const USAGE_COUNTER_COLUMNS = USAGE_COUNTERS.join(', ');

/** The counters an increment names, in USAGE_COUNTERS order (absent: 0). */
export function usageCounts(increment: Pick<UsageIncrement, 'counts'>): number[] {
  return USAGE_COUNTERS.map((counter) => increment.counts[counter] ?? 0);
}

/** `ON CONFLICT … DO UPDATE` adding each counter of the row offered to the stored one (the same text on SQLite and PostgreSQL). */
export const USAGE_UPSERT = `ON CONFLICT (account_id, hour) DO UPDATE SET ${USAGE_COUNTERS.map((c) => `${c} = usage_hours.${c} + excluded.${c}`).join(', ')}`;

/** A usage_hours row as both adapters select it (the hour already ISO 8601 text). */
export type UsageRow = { hour: string } & Record<UsageCounter, number | bigint | string>;

export function toUsageHour(row: UsageRow): UsageHour {
  return { hour: row.hour, counts: Object.fromEntries(USAGE_COUNTERS.map((c) => [c, Number(row[c])])) as Record<UsageCounter, number> };
}
