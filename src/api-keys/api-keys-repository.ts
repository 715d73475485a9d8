export interface ApiKey {
  id: number;
  accountId: number;
  name?: string;
  /** The key's visible start (prefix and a few characters); never the secret. */
  start: string;
  createdAt: string;
  revokedAt?: string;
}

export interface NewApiKey {
  accountId: number;
  name?: string;
  /** SHA-256 of the secret, hex. */
  hash: string;
  start: string;
  createdAt: string;
}

/** What authentication needs to know about a presented key. */
export interface ApiKeyPrincipal {
  keyId: number;
  accountId: number;
}

export type RevokeOutcome = 'revoked' | 'already_revoked' | 'not_found';

/** Storage of API keys: only hashes, never secrets. */
export interface ApiKeysRepository {
  /** Throws NotFoundError('account_not_found') when the account does not exist. */
  create(key: NewApiKey): Promise<ApiKey>;
  listByAccount(accountId: number): Promise<ApiKey[]>;
  /** The key with this hash, if it exists and is not revoked. */
  findActiveByHash(hash: string): Promise<ApiKeyPrincipal | undefined>;
  revoke(id: number, revokedAt: string): Promise<RevokeOutcome>;
}
