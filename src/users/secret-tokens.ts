import { createHash, randomBytes } from 'node:crypto';

/** 256 random bits, URL- and cookie-safe (base64url, 43 characters). */
export function newSecretToken(): string {
  return randomBytes(32).toString('base64url');
}

/** What storage keeps of a session id or a one-time token: its SHA-256, hex. */
export function tokenHash(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/** Well-formed tokens only reach storage (and a hash): anything else is refused as unknown. */
export function isSecretTokenShape(token: string): boolean {
  return /^[A-Za-z0-9_-]{43}$/.test(token);
}
