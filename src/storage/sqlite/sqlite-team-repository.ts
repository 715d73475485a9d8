import type Database from 'better-sqlite3';
import type { NewMail } from '../../mail/mail-repository.js';
import type { MemberRole } from '../../users/team/member-roles.js';
import type { Invitation, MemberChange, NewInvitation, TeamRepository } from '../../users/team/team-repository.js';
import { toInvitation, toMember, toMembership, type InvitationRow, type MemberRow, type MembershipRow } from '../team-rows.js';
import { insertMail } from './sqlite-mail-repository.js';
import { statementCache } from './sqlite-util.js';

export const INVITATION_COLUMNS = 'id, account_id, email, role, invited_by, created_at, expires_at';
/** An invitation that may still be used at the time bound to its `?`. */
export const PENDING = 'accepted_at IS NULL AND revoked_at IS NULL AND expires_at > ?';
/**
 * Another owner than the user remains, one who may still sign in (not
 * disabled): the condition every demotion and removal is made under (SQLite
 * runs one write transaction at a time).
 */
const OTHER_OWNER =
  "EXISTS (SELECT 1 FROM memberships o JOIN users ou ON ou.id = o.user_id WHERE o.account_id = ? AND o.role = 'owner' AND o.user_id <> ? AND ou.disabled_at IS NULL)";

export function createSqliteTeamRepository(db: Database.Database): TeamRepository {
  const sql = statementCache(db);

  /** 'changed', or why not, after a conditional write changed nothing. */
  const whyUnchanged = (accountId: number, userId: number): MemberChange =>
    sql('SELECT 1 FROM memberships WHERE account_id = ? AND user_id = ?').get(accountId, userId) === undefined ? 'not_member' : 'last_owner';

  const setRole = db.transaction((accountId: number, userId: number, role: MemberRole): MemberChange => {
    const changed = sql(`UPDATE memberships SET role = ? WHERE account_id = ? AND user_id = ? AND (? = 'owner' OR role <> 'owner' OR ${OTHER_OWNER})`).run(
      role,
      accountId,
      userId,
      role,
      accountId,
      userId,
    ).changes;
    return changed > 0 ? 'changed' : whyUnchanged(accountId, userId);
  });

  const removeMember = db.transaction((accountId: number, userId: number): MemberChange => {
    const removed = sql(`DELETE FROM memberships WHERE account_id = ? AND user_id = ? AND (role <> 'owner' OR ${OTHER_OWNER})`).run(accountId, userId, accountId, userId).changes;
    if (removed === 0) return whyUnchanged(accountId, userId);
    sql('DELETE FROM user_sessions WHERE user_id = ? AND account_id = ?').run(userId, accountId);
    return 'changed';
  });

  const createInvitation = db.transaction((invitation: NewInvitation, mail: NewMail | undefined): InvitationRow => {
    const row = sql(
      `INSERT INTO invitations (token_hash, account_id, email, role, invited_by, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING ${INVITATION_COLUMNS}`,
    ).get(
      invitation.tokenHash,
      invitation.accountId,
      invitation.email ?? null,
      invitation.role,
      invitation.invitedBy ?? null,
      invitation.createdAt,
      invitation.expiresAt,
    ) as InvitationRow;
    if (mail !== undefined) insertMail(sql, [mail]);
    return row;
  });

  const acceptInvitation = db.transaction((tokenHash: string, now: string, userId: number): Invitation | 'already_member' | undefined => {
    const row = sql(`UPDATE invitations SET accepted_at = ?, accepted_by = ? WHERE token_hash = ? AND ${PENDING} RETURNING ${INVITATION_COLUMNS}`).get(
      now,
      userId,
      tokenHash,
      now,
    ) as InvitationRow | undefined;
    if (row === undefined) return undefined;
    const joined = sql('INSERT INTO memberships (user_id, account_id, role, created_at) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING').run(userId, row.account_id, row.role, now).changes;
    if (joined === 0) {
      // Undo the acceptance: the invitation stays pending for someone it may still be meant for.
      sql('UPDATE invitations SET accepted_at = NULL, accepted_by = NULL WHERE id = ?').run(row.id);
      return 'already_member';
    }
    return toInvitation(row);
  });

  return {
    async listMembers(accountId) {
      const rows = sql(
        `SELECT m.user_id, u.email, m.role, m.created_at AS joined_at, u.disabled_at
           FROM memberships m JOIN users u ON u.id = m.user_id WHERE m.account_id = ? ORDER BY m.created_at, m.user_id`,
      ).all(accountId) as MemberRow[];
      return rows.map(toMember);
    },
    async listMemberships(userId) {
      const rows = sql(
        'SELECT m.account_id, a.name AS account_name, m.role FROM memberships m JOIN accounts a ON a.id = m.account_id WHERE m.user_id = ? ORDER BY m.account_id',
      ).all(userId) as MembershipRow[];
      return rows.map(toMembership);
    },
    async setRole(accountId, userId, role) {
      return setRole.immediate(accountId, userId, role);
    },
    async removeMember(accountId, userId) {
      return removeMember.immediate(accountId, userId);
    },
    async createInvitation(invitation, mail) {
      return toInvitation(createInvitation.immediate(invitation, mail));
    },
    async listInvitations(accountId, now) {
      const rows = sql(`SELECT ${INVITATION_COLUMNS} FROM invitations WHERE account_id = ? AND ${PENDING} ORDER BY id`).all(accountId, now) as InvitationRow[];
      return rows.map(toInvitation);
    },
    async revokeInvitation(accountId, id, at) {
      const row = sql(`UPDATE invitations SET revoked_at = ? WHERE id = ? AND account_id = ? AND ${PENDING} RETURNING ${INVITATION_COLUMNS}`).get(at, id, accountId, at) as
        | InvitationRow
        | undefined;
      return row && toInvitation(row);
    },
    async peekInvitation(tokenHash, now) {
      const row = sql(`SELECT ${INVITATION_COLUMNS} FROM invitations WHERE token_hash = ? AND ${PENDING}`).get(tokenHash, now) as InvitationRow | undefined;
      return row && toInvitation(row);
    },
    async acceptInvitation(tokenHash, now, userId) {
      return acceptInvitation.immediate(tokenHash, now, userId);
    },
  };
}
