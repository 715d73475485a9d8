import type { NewMail } from '../../mail/mail-repository.js';
import type { MemberRole } from './member-roles.js';

/** A user of an account as the Team page lists them. */
export interface Member {
  userId: number;
  email: string;
  role: MemberRole;
  /** ISO 8601 UTC: when they joined the account. */
  joinedAt: string;
  /** ISO 8601 UTC, when the user is disabled (by the operator). */
  disabledAt?: string;
}

/** One account a user belongs to, as the header's account switcher lists it. */
export interface Membership {
  accountId: number;
  accountName: string;
  role: MemberRole;
}

export interface NewInvitation {
  /** SHA-256 (hex) of the token; the token itself is never stored. */
  tokenHash: string;
  accountId: number;
  /** The address it was mailed to (the Team page); absent for an operator's link, which whoever holds it may use. */
  email?: string;
  role: MemberRole;
  /** The user who invited (absent: the operator). */
  invitedBy?: number;
  createdAt: string;
  expiresAt: string;
}

/** An invitation as stored (never its token or the token's hash). */
export interface Invitation {
  id: number;
  accountId: number;
  email?: string;
  role: MemberRole;
  invitedBy?: number;
  createdAt: string;
  expiresAt: string;
}

/** The outcome of a change to a member: made, no such member, or refused because it would leave the account without an owner. */
export type MemberChange = 'changed' | 'not_member' | 'last_owner';

/** Storage of memberships (user × account × role) and invitations. Adapters live in src/storage/<database>/. */
export interface TeamRepository {
  /** The account's members, by join time then user id. */
  listMembers(accountId: number): Promise<Member[]>;
  /** The accounts the user belongs to, by account id. */
  listMemberships(userId: number): Promise<Membership[]>;
  /**
   * Sets a member's role, atomically keeping at least one owner who may
   * sign in (a disabled user does not count): demoting the last owner
   * changes nothing and answers `last_owner`, also when two owners demote
   * each other at the same time (the changes to one account's members are
   * serialised).
   */
  setRole(accountId: number, userId: number, role: MemberRole): Promise<MemberChange>;
  /**
   * Removes the user from the account and ends every session of theirs
   * working in that account, in one transaction; the last owner is never
   * removed (`last_owner`, nothing changed), with the same serialisation as
   * setRole.
   */
  removeMember(accountId: number, userId: number): Promise<MemberChange>;
  /** Stores the invitation and, when given, queues the mail that carries its link, in one transaction. */
  createInvitation(invitation: NewInvitation, mail?: NewMail): Promise<Invitation>;
  /** The account's pending invitations at `now` (neither accepted, revoked nor expired), oldest first. */
  listInvitations(accountId: number, now: string): Promise<Invitation[]>;
  /** Revokes the account's pending invitation `id` (another account's is not found); the invitation, or undefined when none was pending. */
  revokeInvitation(accountId: number, id: number, at: string): Promise<Invitation | undefined>;
  /** The pending invitation whose token has this hash at `now`, without using it. */
  peekInvitation(tokenHash: string, now: string): Promise<Invitation | undefined>;
  /**
   * An existing user accepts a pending invitation, once (of two concurrent
   * callers, one gets it): the membership is added in the same transaction;
   * when the user is already a member, nothing changes and the answer is
   * `already_member`. undefined: not pending at `now`. (A sign-up with an
   * invitation is UsersRepository.createInvited: the user and the use of
   * the link in one transaction.)
   */
  acceptInvitation(tokenHash: string, now: string, userId: number): Promise<Invitation | 'already_member' | undefined>;
}
