import type { ApiKeyScope } from './api-key-scopes.js';

export interface ApiKey {
  id: number;
  accountId: number;
  name?: string;
  /** The key's visible start (prefix and a few characters); never the secret. */
  start: string;
  createdAt: string;
  revokedAt?: string;
  /** When the key stops working; absent: never. */
  expiresAt?: string;
  scopes: ApiKeyScope[];
  /** The last request made with the key, as of the last usage flush. */
  lastUsedAt?: string;
}

export interface NewApiKey {
  accountId: number;
  name?: string;
  /** SHA-256 of the secret, hex. */
  hash: string;
  start: string;
  createdAt: string;
  expiresAt?: string;
  scopes: readonly ApiKeyScope[];
}

/** What authentication needs to know about a presented key. */
export interface ApiKeyPrincipal {
  keyId: number;
  accountId: number;
  scopes: readonly ApiKeyScope[];
  /** Absent: the key does not expire. */
  expiresAt?: string;
}

export type RevokeOutcome = 'revoked' | 'already_revoked' | 'not_found';

export type RollOutcome =
  | { outcome: 'rolled'; old: ApiKey; created: ApiKey }
  | { outcome: 'not_found' | 'revoked' | 'expired' };

/** Storage of API keys: only hashes, never secrets. */
export interface ApiKeysRepository {
  /** Throws NotFoundError('account_not_found') when the account does not exist. */
  create(key: NewApiKey): Promise<ApiKey>;
  listByAccount(accountId: number): Promise<ApiKey[]>;
  /** The key with this hash, if it exists and is not revoked (expired keys included: the caller decides). */
  findActiveByHash(hash: string): Promise<ApiKeyPrincipal | undefined>;
  revoke(id: number, revokedAt: string): Promise<RevokeOutcome>;
  /**
   * Atomically: if key `id` is neither revoked nor expired at `now`, inserts
   * the key `replace` builds from it and moves the old key's expiry to the
   * `oldExpiresAt` it returns (never later than the old expiry).
   */
  roll(
    id: number,
    now: string,
    replace: (old: ApiKey) => { key: NewApiKey; oldExpiresAt: string },
  ): Promise<RollOutcome>;
  /** Records last-use times in one batch; a time never moves backwards. */
  recordLastUsed(uses: readonly { id: number; at: string }[]): Promise<void>;
}
