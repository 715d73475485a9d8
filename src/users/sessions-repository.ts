import type { User } from './users-repository.js';

export interface NewSession {
  /** SHA-256 (hex) of the cookie's value; the value itself is never stored. */
  idHash: string;
  userId: number;
  createdAt: string;
  /** The absolute end: the session is refused from then on, however active. */
  expiresAt: string;
}

/** A stored session with its user and the user's account name, as one read. */
export interface SessionRecord {
  idHash: string;
  createdAt: string;
  lastSeenAt: string;
  expiresAt: string;
  user: User;
  accountName: string;
}

/** Storage of portal sessions. Adapters live in src/storage/<database>/. */
export interface SessionsRepository {
  create(session: NewSession): Promise<void>;
  find(idHash: string): Promise<SessionRecord | undefined>;
  /** Moves last_seen_at forward (never back). */
  touch(idHash: string, at: string): Promise<void>;
  delete(idHash: string): Promise<void>;
  /** Ends every session of the user except `keepIdHash` (when given); returns how many ended. */
  deleteForUser(userId: number, keepIdHash?: string): Promise<number>;
}
