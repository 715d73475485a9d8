import type { SessionRecord, SessionSummary } from '../users/sessions-repository.js';
import type { MemberRole } from '../users/team/member-roles.js';
import type { User, UserWithPassword } from '../users/users-repository.js';

/*
 * Portal users' and sessions' rows as both adapters select them (timestamps
 * ISO 8601 text), mapped in one place so both databases answer identically.
 */

export interface UserRow {
  id: bigint;
  account_id: bigint;
  email: string;
  password_hash: string;
  created_at: string;
  disabled_at: string | null;
  email_verified_at: string | null;
}

export function toUser(row: UserRow): UserWithPassword {
  return { ...userOf(row), passwordHash: row.password_hash };
}

function userOf(row: Omit<UserRow, 'password_hash'>): User {
  return {
    id: Number(row.id),
    accountId: Number(row.account_id),
    email: row.email,
    createdAt: row.created_at,
    ...(row.disabled_at === null ? {} : { disabledAt: row.disabled_at }),
    ...(row.email_verified_at === null ? {} : { emailVerifiedAt: row.email_verified_at }),
  };
}

export interface SessionRow extends Omit<UserRow, 'password_hash'> {
  id_hash: string;
  session_created_at: string;
  last_seen_at: string;
  expires_at: string;
  /** authenticated_at, or created_at while the session has had no confirmation since sign-in. */
  authenticated_at: string;
  account_name: string;
  role: MemberRole;
}

export function toSessionRecord(row: SessionRow): SessionRecord {
  return {
    idHash: row.id_hash,
    createdAt: row.session_created_at,
    lastSeenAt: row.last_seen_at,
    expiresAt: row.expires_at,
    authenticatedAt: row.authenticated_at,
    user: userOf(row),
    accountName: row.account_name,
    role: row.role,
  };
}

export interface SessionSummaryRow {
  handle: string;
  device: string;
  address: string;
  created_at: string;
  last_seen_at: string;
  expires_at: string;
  /** 1 or true for the session asked about (SQLite answers 0/1, PostgreSQL a boolean). */
  current: number | boolean | bigint;
}

export function toSessionSummary(row: SessionSummaryRow): SessionSummary {
  return {
    handle: row.handle,
    device: row.device,
    address: row.address,
    createdAt: row.created_at,
    lastSeenAt: row.last_seen_at,
    expiresAt: row.expires_at,
    current: row.current === true || Number(row.current) === 1,
  };
}
