import { randomBytes } from 'node:crypto';

// A per-process nonce keeps a user-supplied string from posing as a marker.
const NONCE = randomBytes(8).toString('hex');
const BIGINT_MARKED = new RegExp(`"bigint:${NONCE}:(-?\\d+)"`, 'g');

/**
 * JSON.stringify that writes bigints as plain JSON numbers with every digit,
 * so int64 identifiers survive (JSON.stringify alone throws on bigint).
 */
export function stringifyJson(value: unknown, indent?: number): string {
  const text = JSON.stringify(value, (_key, v: unknown) => (typeof v === 'bigint' ? `bigint:${NONCE}:${v.toString()}` : v), indent);
  return text.replace(BIGINT_MARKED, '$1');
}
