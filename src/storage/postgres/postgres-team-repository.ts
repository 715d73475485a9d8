import type { MemberRole } from '../../users/team/member-roles.js';
import type { MemberChange, TeamRepository } from '../../users/team/team-repository.js';
import { toInvitation, toMember, toMembership, type InvitationRow, type MemberRow, type MembershipRow } from '../team-rows.js';
import { insertMail } from './postgres-mail-repository.js';
import { isoTimestamp, qualified, type Sql, type Transaction } from './postgres-sql.js';

export const INVITATION_COLUMNS = `id, account_id, email, role, invited_by, ${isoTimestamp('created_at')}, ${isoTimestamp('expires_at')}`;
/** Another owner than the user remains, one who may still sign in (not disabled). */
const OTHER_OWNER =
  "EXISTS (SELECT 1 FROM memberships o JOIN users ou ON ou.id = o.user_id WHERE o.account_id = $1 AND o.role = 'owner' AND o.user_id <> $2 AND ou.disabled_at IS NULL)";

/**
 * Locks the account's owner rows for the transaction: changes that could
 * leave the account without an owner wait for each other, and the
 * statement after the lock sees the owners as the previous change left
 * them (READ COMMITTED takes a new snapshot per statement).
 */
async function lockOwners(tx: Sql, accountId: number): Promise<void> {
  await tx("SELECT user_id FROM memberships WHERE account_id = $1 AND role = 'owner' FOR UPDATE", [accountId]);
}

async function whyUnchanged(tx: Sql, accountId: number, userId: number): Promise<MemberChange> {
  const rows = await tx('SELECT 1 FROM memberships WHERE account_id = $1 AND user_id = $2', [accountId, userId]);
  return rows.length === 0 ? 'not_member' : 'last_owner';
}

export function createPostgresTeamRepository(sql: Sql, transaction: Transaction): TeamRepository {
  return {
    async listMembers(accountId) {
      const rows = await sql<MemberRow>(
        `SELECT m.user_id, u.email, m.role, to_char(m.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS joined_at, ${qualified('u', 'disabled_at')}
           FROM memberships m JOIN users u ON u.id = m.user_id WHERE m.account_id = $1 ORDER BY m.created_at, m.user_id`,
        [accountId],
      );
      return rows.map(toMember);
    },
    async listMemberships(userId) {
      const rows = await sql<MembershipRow>(
        'SELECT m.account_id, a.name AS account_name, m.role FROM memberships m JOIN accounts a ON a.id = m.account_id WHERE m.user_id = $1 ORDER BY m.account_id',
        [userId],
      );
      return rows.map(toMembership);
    },
    async setRole(accountId, userId, role: MemberRole) {
      return transaction(async (tx) => {
        await lockOwners(tx, accountId);
        const changed = await tx(`UPDATE memberships SET role = $3 WHERE account_id = $1 AND user_id = $2 AND ($3 = 'owner' OR role <> 'owner' OR ${OTHER_OWNER}) RETURNING 1`, [
          accountId,
          userId,
          role,
        ]);
        return changed.length > 0 ? 'changed' : whyUnchanged(tx, accountId, userId);
      });
    },
    async removeMember(accountId, userId) {
      return transaction(async (tx) => {
        await lockOwners(tx, accountId);
        const removed = await tx(`DELETE FROM memberships WHERE account_id = $1 AND user_id = $2 AND (role <> 'owner' OR ${OTHER_OWNER}) RETURNING 1`, [accountId, userId]);
        if (removed.length === 0) return whyUnchanged(tx, accountId, userId);
        await tx('DELETE FROM user_sessions WHERE user_id = $1 AND account_id = $2', [userId, accountId]);
        return 'changed';
      });
    },
    async createInvitation(invitation, mail) {
      return transaction(async (tx) => {
        const [row] = await tx<InvitationRow>(
          `INSERT INTO invitations (token_hash, account_id, email, role, invited_by, created_at, expires_at) VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING ${INVITATION_COLUMNS}`,
          [invitation.tokenHash, invitation.accountId, invitation.email ?? null, invitation.role, invitation.invitedBy ?? null, invitation.createdAt, invitation.expiresAt],
        );
        if (row === undefined) throw new Error('INSERT … RETURNING returned no row');
        if (mail !== undefined) await insertMail(tx, [mail]);
        return toInvitation(row);
      });
    },
    async listInvitations(accountId, now) {
      const rows = await sql<InvitationRow>(
        `SELECT ${INVITATION_COLUMNS} FROM invitations WHERE account_id = $1 AND accepted_at IS NULL AND revoked_at IS NULL AND expires_at > $2 ORDER BY id`,
        [accountId, now],
      );
      return rows.map(toInvitation);
    },
    async revokeInvitation(accountId, id, at) {
      const [row] = await sql<InvitationRow>(
        `UPDATE invitations SET revoked_at = $3 WHERE id = $1 AND account_id = $2 AND accepted_at IS NULL AND revoked_at IS NULL AND expires_at > $3 RETURNING ${INVITATION_COLUMNS}`,
        [id, accountId, at],
      );
      return row && toInvitation(row);
    },
    async peekInvitation(tokenHash, now) {
      const [row] = await sql<InvitationRow>(
        `SELECT ${INVITATION_COLUMNS} FROM invitations WHERE token_hash = $1 AND accepted_at IS NULL AND revoked_at IS NULL AND expires_at > $2`,
        [tokenHash, now],
      );
      return row && toInvitation(row);
    },
    async acceptInvitation(tokenHash, now, userId) {
      const accepted = await transaction(async (tx) => {
        const [row] = await tx<InvitationRow>(
          `UPDATE invitations SET accepted_at = $2, accepted_by = $3 WHERE token_hash = $1 AND accepted_at IS NULL AND revoked_at IS NULL AND expires_at > $2 RETURNING ${INVITATION_COLUMNS}`,
          [tokenHash, now, userId],
        );
        if (row === undefined) return row;
        const joined = await tx('INSERT INTO memberships (user_id, account_id, role, created_at) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING RETURNING 1', [userId, row.account_id, row.role, now]);
        // Already a member: roll the acceptance back, so the invitation stays pending.
        if (joined.length === 0) throw new AlreadyMember();
        return row;
      }).catch((error: unknown) => {
        if (error instanceof AlreadyMember) return 'already_member' as const;
        throw error;
      });
      return accepted === undefined || accepted === 'already_member' ? accepted : toInvitation(accepted);
    },
  };
}

/** Thrown inside acceptInvitation's transaction to roll it back. */
class AlreadyMember extends Error {}
