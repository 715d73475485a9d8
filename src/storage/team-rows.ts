import type { MemberRole } from '../users/team/member-roles.js';
import type { Invitation, Member, Membership } from '../users/team/team-repository.js';

/* Memberships' and invitations' rows as both adapters select them (timestamps ISO 8601 text), mapped in one place. */

export interface MemberRow {
  user_id: bigint;
  email: string;
  role: MemberRole;
  joined_at: string;
  disabled_at: string | null;
}

export const toMember = (row: MemberRow): Member => ({
  userId: Number(row.user_id),
  email: row.email,
  role: row.role,
  joinedAt: row.joined_at,
  ...(row.disabled_at === null ? {} : { disabledAt: row.disabled_at }),
});

export interface MembershipRow {
  account_id: bigint;
  account_name: string;
  role: MemberRole;
}

export const toMembership = (row: MembershipRow): Membership => ({ accountId: Number(row.account_id), accountName: row.account_name, role: row.role });

export interface InvitationRow {
  id: bigint;
  account_id: bigint;
  email: string | null;
  role: MemberRole;
  invited_by: bigint | null;
  created_at: string;
  expires_at: string;
}

export const toInvitation = (row: InvitationRow): Invitation => ({
  id: Number(row.id),
  accountId: Number(row.account_id),
  ...(row.email === null ? {} : { email: row.email }),
  role: row.role,
  ...(row.invited_by === null ? {} : { invitedBy: Number(row.invited_by) }),
  createdAt: row.created_at,
  expiresAt: row.expires_at,
});
