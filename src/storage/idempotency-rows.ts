import type { HeldIdempotencyKey } from '../idempotency/idempotency-repository.js';

/** An idempotency_keys row as both adapters select it. */
export interface HeldRow {
  fingerprint: string;
  state: 'in_progress' | 'complete';
  /** A bigint from SQLite, whose integers are read as bigints. */
  response_status: number | bigint | null;
  response_headers: string | null;
  response_body: string | null;
}

export const HELD_COLUMNS = 'fingerprint, state, response_status, response_headers, response_body';

/** A held record as the domain reads it; the response only once complete. */
export function heldOf(row: HeldRow): HeldIdempotencyKey {
  if (row.state !== 'complete' || row.response_status === null) return { fingerprint: row.fingerprint };
  return {
    fingerprint: row.fingerprint,
    response: { status: Number(row.response_status), headers: JSON.parse(row.response_headers ?? '{}') as Record<string, string>, body: row.response_body ?? '' },
  };
}
