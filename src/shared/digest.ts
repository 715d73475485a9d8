import { createHash } from 'node:crypto';

/** A short, URL- and header-safe SHA-256 digest of the parts, in order. */
export function digestOf(parts: readonly (string | number | bigint)[]): string {
  return createHash('sha256').update(parts.map(String).join('\n')).digest('base64url').slice(0, 27);
}
