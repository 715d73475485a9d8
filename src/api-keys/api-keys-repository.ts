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

/** Which key a presented key is, and whose. */
export interface KeyOwner {
  keyId: number;
  accountId: number;
}

export type RevokeOutcome = 'revoked' | 'already_revoked' | 'not_found';

/**
 * A key replacement, decided by the service from the old key as it read it:
 * the new key, and the old key's new expiry (the end of its grace period).
 */
export interface KeyReplacement {
  key: NewApiKey;
  oldExpiresAt: string;
}

/** `changed`: the old key is no longer as read (revoked, rolled or gone meanwhile): read it again and decide again. */
export type RollOutcome = { outcome: 'rolled'; old: ApiKey; created: ApiKey } | { outcome: 'changed' };

/** Storage of API keys: only hashes, never secrets. */
export interface ApiKeysRepository {
  /**
   * Throws NotFoundError('account_not_found') when the account does not
   * exist or was deleted (checked in the insert's own statement, against a
   * deletion at the same moment too: AccountsRepository.delete).
   */
  create(key: NewApiKey): Promise<ApiKey>;
  listByAccount(accountId: number): Promise<ApiKey[]>;
  /** The key with this hash, if it exists and is not revoked (expired keys included: the caller decides). */
  findActiveByHash(hash: string): Promise<ApiKeyPrincipal | undefined>;
  /**
   * The key and account of the key with this hash, revoked and expired keys
   * included: whom a request names, for its request log, whether or not the
   * key still works.
   */
  findOwnerByHash(hash: string): Promise<KeyOwner | undefined>;
  revoke(id: number, revokedAt: string): Promise<RevokeOutcome>;
  /** Any key by id, revoked and expired ones included. */
  findById(id: number): Promise<ApiKey | undefined>;
  /**
   * Atomically, and only if key `id` is still as `seen` (not revoked, the
   * same expiry): moves its expiry to `replacement.oldExpiresAt` (never later
   * than its own expiry) and inserts `replacement.key`. Otherwise writes
   * nothing and answers `changed`. One conditional write: of a roll and a
   * revoke, or of two rolls, racing on one key, only one can win.
   */
  roll(seen: ApiKey, replacement: KeyReplacement): Promise<RollOutcome>;
  /** Records last-use times in one batch; a time never moves backwards. */
  recordLastUsed(uses: readonly { id: number; at: string }[]): Promise<void>;
}
