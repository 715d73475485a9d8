import { readableInstant } from '../../shared/date-time.js';

/** An ISO 8601 instant as people read it on the portal's tables: `2026-11-24 19:05 UTC`. */
export function formatInstant(iso: string | undefined, absent = '—'): string {
  return iso === undefined ? absent : readableInstant(iso);
}
