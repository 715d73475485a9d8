import type { MemberRole } from './team/member-roles.js';
import type { User } from './users-repository.js';

export interface NewSession {
  /** SHA-256 (hex) of the cookie's value; the value itself is never stored. */
  idHash: string;
  userId: number;
  createdAt: string;
  /** The absolute end: the session is refused from then on, however active. */
  expiresAt: string;
  /** An opaque public name for the session (its End button), unrelated to its id. */
  handle: string;
  /** A short description of the browser ("Firefox on Linux"), '' when unknown. */
  device: string;
  /** The client's address at sign-in, as the audit trail records it; '' when unknown. */
  address: string;
  /**
   * The account the session works in; the user must be a member of it.
   * Absent: the account the user was created into while they are still a
   * member of it, else the one they joined first.
   */
  accountId?: number;
}

/** One of a user's sessions as the Sessions list shows it: never its id or the id's hash. */
export interface SessionSummary {
  handle: string;
  device: string;
  address: string;
  createdAt: string;
  lastSeenAt: string;
  expiresAt: string;
  /** Whether this is the session `listForUser` was asked about (the browser looking at the list). */
  current: boolean;
}

/**
 * A stored session with its user, as one read: `user.accountId` is the
 * account the session works in (not necessarily the one the user was
 * created into), `accountName` its name and `role` the user's role there.
 */
export interface SessionRecord {
  idHash: string;
  createdAt: string;
  lastSeenAt: string;
  expiresAt: string;
  /** When the user last proved who they are in this session: the sign-in, or a later confirmation (password or passkey). */
  authenticatedAt: string;
  user: User;
  accountName: string;
  role: MemberRole;
}

/** Storage of portal sessions. Adapters live in src/storage/<database>/. */
export interface SessionsRepository {
  /** Stores the session; the account it works in, or undefined (nothing stored) when the user is a member of no account (or not of `accountId`). */
  create(session: NewSession): Promise<number | undefined>;
  /** The session, while its user is still a member of the account it works in. */
  find(idHash: string): Promise<SessionRecord | undefined>;
  /** Makes the user's session work in `accountId`, when they are a member of it; returns whether it did. */
  switchAccount(idHash: string, userId: number, accountId: number): Promise<boolean>;
  /** Records a confirmation of the user (password or passkey) in the session: moves authenticated_at forward (never back). */
  markAuthenticated(idHash: string, at: string): Promise<void>;
  /** Moves last_seen_at forward (never back). */
  touch(idHash: string, at: string): Promise<void>;
  delete(idHash: string): Promise<void>;
  /** The user's sessions, newest sign-in first, `current` marking the one whose id hash is `currentIdHash`. */
  listForUser(userId: number, currentIdHash: string): Promise<SessionSummary[]>;
  /** Ends the user's session named `handle` (another user's handle ends nothing); returns whether one ended. */
  deleteByHandle(userId: number, handle: string): Promise<boolean>;
  /** Ends every session of the user except `keepIdHash` (when given); returns how many ended. */
  deleteForUser(userId: number, keepIdHash?: string): Promise<number>;
}
