import type { NewRequestLog } from '../../request-logs/request-logs-repository.js';

/**
 * The times and durations of SQLite's packed request logs
 * (sqlite-request-log-batches.ts): the window a batch's entries arrived in,
 * and the short forms an entry's time and duration are packed in.
 */

/** A batch's entries arrived within one window of this many milliseconds, aligned to the epoch. */
export const WINDOW_MS = 10_000;

/**
 * The window an arrival time (ISO 8601) falls in, as text that is the same
 * for every time of one window: for the stored form (2026-11-27T10:42:17.123Z)
 * its first 18 characters, the tens of seconds; for any other form, those of
 * the same instant in the stored form.
 */
export function windowOf(at: string): string {
  if (at.length === 24 && at[10] === 'T' && at.endsWith('Z')) return at.slice(0, 18);
  const ms = Date.parse(at);
  return Number.isNaN(ms) ? at : new Date(ms).toISOString().slice(0, 18);
}

/** The instant `ms` milliseconds after an ISO 8601 time, in the stored form (for a walk's bound). */
export function later(at: string, ms: number): string {
  const parsed = Date.parse(at);
  return Number.isNaN(parsed) ? at : new Date(parsed + ms).toISOString();
}

/** A packed field: a number, or the text itself. */
export type Text = number | string;

/** An arrival time in the stored form, to the millisecond. */
const STORED_TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

/**
 * The arrival times of one batch as numbers of milliseconds after the start
 * of its window (`window`), or the text when it is not in the stored form or
 * not in that window. The last time's answer is remembered: a busy host
 * stamps a dozen requests in each millisecond.
 */
export function timeOffsets(window: number): (at: string) => Text {
  let lastAt = '';
  let last: Text = '';
  return (at) => {
    if (at === lastAt) return last;
    const ms = STORED_TIME.test(at) ? Date.parse(at) : Number.NaN;
    const offset = ms - window;
    lastAt = at;
    last = offset >= 0 && offset < WINDOW_MS && new Date(ms).toISOString() === at ? offset : at;
    return last;
  };
}

/** The inverse of timeOffsets: an entry's arrival time as stored. */
export function timeTexts(window: number): (at: Text) => string {
  let lastOffset = Number.NaN;
  let last = '';
  return (at) => {
    if (typeof at === 'string') return at;
    if (at !== lastOffset) {
      lastOffset = at;
      last = new Date(window + at).toISOString();
    }
    return last;
  };
}

/**
 * A duration (milliseconds, as stored: to the microsecond) as a whole number
 * of microseconds, which JSON writes as fast as any integer, where a
 * fraction costs a shortest-decimal conversion each (BENCHMARKS.md,
 * fourteenth session); any other duration (finer, or not finite) is kept as
 * it is, in an array of one number (JSON writes a non-finite one as null, as
 * it did before this form).
 */
export function microseconds(durationMs: number): number | [number] {
  const us = Math.round(durationMs * 1000);
  return Number.isFinite(us) && us / 1000 === durationMs ? us : [durationMs];
}

/** The inverse of microseconds. */
export const milliseconds = (stored: number | [number]): number => (typeof stored === 'number' ? stored / 1000 : stored[0]);

/** The start of the window (epoch milliseconds) of the first entry in the stored form, or 0. */
export function windowStart(entries: readonly (NewRequestLog | null)[]): number {
  for (const entry of entries) {
    if (entry === null || !STORED_TIME.test(entry.at)) continue;
    const ms = Date.parse(entry.at);
    if (!Number.isNaN(ms)) return ms - (ms % WINDOW_MS);
  }
  return 0;
}
