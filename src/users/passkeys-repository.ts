/** A user's registered passkey (WebAuthn credential). Ids and the public key are base64url text. */
export interface Passkey {
  id: number;
  userId: number;
  credentialId: string;
  publicKey: string;
  signCount: number;
  /** Hints the authenticator gave (`internal`, `hybrid`, …). */
  transports: string[];
  name: string;
  /** ISO 8601 UTC. */
  createdAt: string;
  lastUsedAt?: string;
}

export type NewPasskey = Omit<Passkey, 'id' | 'lastUsedAt'>;

export type ChallengePurpose = 'register' | 'sign_in';

export interface NewChallenge {
  /** SHA-256 (hex) of the challenge. */
  hash: string;
  purpose: ChallengePurpose;
  /** The user registering; absent for a sign-in. */
  userId?: number;
  expiresAt: string;
}

/** Storage of passkeys and their one-time challenges. Adapters live in src/storage/<database>/. */
export interface PasskeysRepository {
  /** 'credential_taken' when that credential is already registered (to anyone). */
  create(passkey: NewPasskey): Promise<Passkey | 'credential_taken'>;
  listByUser(userId: number): Promise<Passkey[]>;
  findByCredentialId(credentialId: string): Promise<Passkey | undefined>;
  /** Records a use: the new counter and when. */
  recordUse(id: number, signCount: number, at: string): Promise<void>;
  createChallenge(challenge: NewChallenge): Promise<void>;
  /** Deletes the challenge and answers it when it existed for this purpose and had not expired at `now` (used once, even if expired). */
  consumeChallenge(hash: string, purpose: ChallengePurpose, now: string): Promise<{ userId?: number } | undefined>;
}
