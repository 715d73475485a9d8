/**
 * The times and durations of SQLite's packed request logs
 * (sqlite-request-log-batches.ts): the window a batch's entries arrived in,
 * and the short forms an entry's time and duration are packed in.
 */

/** A batch's entries arrived within one window of this many milliseconds, aligned to the epoch. */
export const WINDOW_MS = 10_000;

/** The start of the window an arrival time (epoch milliseconds) falls in. */
export function windowOfTime(at: number): number {
  return at - (((at % WINDOW_MS) + WINDOW_MS) % WINDOW_MS);
}

/** The instant `ms` milliseconds after an ISO 8601 time, in the stored form (for a walk's bound). */
export function later(at: string, ms: number): string {
  const parsed = Date.parse(at);
  return Number.isNaN(parsed) ? at : new Date(parsed + ms).toISOString();
}

/** A packed field: a number, or the text itself. */
export type Text = number | string;

/** An entry's arrival time as stored, from its packed form: milliseconds after the window's start `window`, or the text itself. */
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
