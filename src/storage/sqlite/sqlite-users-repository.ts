import type Database from 'better-sqlite3';
import { NotFoundError } from '../../errors/errors.js';
import type { NewMail } from '../../mail/mail-repository.js';
import {
  withoutPassword,
  type EmailTokenUse,
  type InvitedUser,
  type NewOneTimeToken,
  type OneTimeTokenKind,
  type NewUser,
  type SignUpVerification,
  type UsersRepository,
} from '../../users/users-repository.js';
import { insertMail } from './sqlite-mail-repository.js';
import { INVITATION_COLUMNS, PENDING } from './sqlite-team-repository.js';
import { toUser, type UserRow } from '../user-row-mappers.js';
import { toInvitation, type InvitationRow } from '../team-rows.js';
import { sqliteConstraint, statementCache } from './sqlite-util.js';

const COLUMNS = 'id, account_id, email, password_hash, created_at, disabled_at, email_verified_at';

interface GrantRow {
  kind: OneTimeTokenKind;
  origin: 'operator' | 'user';
  user_id: bigint;
}

const toGrant = (row: GrantRow) => ({
  kind: row.kind,
  origin: row.origin,
  userId: Number(row.user_id),
});

export function createSqliteUsersRepository(db: Database.Database): UsersRepository {
  const sql = statementCache(db);

  /** The new hash, and no outstanding reset link of the user any more; run inside a transaction. */
  const setPassword = (userId: number, passwordHash: string): boolean => {
    const found = sql('UPDATE users SET password_hash = ? WHERE id = ?').run(passwordHash, userId).changes > 0;
    sql("DELETE FROM user_tokens WHERE user_id = ? AND kind = 'reset' AND used_at IS NULL").run(userId);
    return found;
  };
  const setPasswordHash = db.transaction((userId: number, passwordHash: string, notice: NewMail | undefined): boolean => {
    const found = setPassword(userId, passwordHash);
    if (found && notice !== undefined) insertMail(sql, [notice]);
    return found;
  });
  const usePasswordReset = db.transaction((hash: string, passwordHash: string, now: string, notice: NewMail | undefined): number | undefined => {
    const row = sql("UPDATE user_tokens SET used_at = ? WHERE hash = ? AND kind = 'reset' AND used_at IS NULL AND expires_at > ? RETURNING user_id").get(now, hash, now) as
      | { user_id: bigint }
      | undefined;
    if (row === undefined) return undefined;
    const userId = Number(row.user_id);
    if (!setPassword(userId, passwordHash)) return undefined;
    if (notice !== undefined) insertMail(sql, [notice]);
    return userId;
  });

  const insertToken = (token: NewOneTimeToken): void => {
    sql('INSERT INTO user_tokens (hash, kind, origin, user_id, email, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?)').run(
      token.hash,
      token.kind,
      token.origin ?? 'operator',
      token.userId,
      token.email ?? null,
      token.createdAt,
      token.expiresAt,
    );
  };
  const createTokenWithMail = db.transaction((token: NewOneTimeToken, mail: NewMail | readonly NewMail[]) => {
    insertToken(token);
    insertMail(sql, [mail].flat());
  });

  /** The user, their first membership and their verification link; run inside a transaction (a taken email throws, rolling it back). */
  const insertUser = (user: NewUser, verification: SignUpVerification | undefined): UserRow => {
    const row = sql(`INSERT INTO users (account_id, email, password_hash, created_at) VALUES (?, ?, ?, ?) RETURNING ${COLUMNS}`).get(
      user.accountId,
      user.email,
      user.passwordHash,
      user.createdAt,
    ) as UserRow;
    sql('INSERT INTO memberships (user_id, account_id, role, created_at) VALUES (?, ?, ?, ?)').run(row.id, user.accountId, user.role, user.createdAt);
    if (verification !== undefined) {
      const { mail, ...token } = verification;
      insertToken({ ...token, kind: 'verify-email', origin: 'user', userId: Number(row.id), email: user.email });
      insertMail(sql, [mail]);
    }
    return row;
  };
  const createUser = db.transaction(insertUser);
  const createInvited = db.transaction((tokenHash: string, now: string, user: InvitedUser, verification: SignUpVerification | undefined) => {
    const invitation = sql(`UPDATE invitations SET accepted_at = ? WHERE token_hash = ? AND ${PENDING} RETURNING ${INVITATION_COLUMNS}`).get(now, tokenHash, now) as
      | InvitationRow
      | undefined;
    if (invitation === undefined) return 'invitation_invalid' as const;
    const row = insertUser({ ...user, accountId: Number(invitation.account_id), role: invitation.role }, verification);
    sql('UPDATE invitations SET accepted_by = ? WHERE id = ?').run(row.id, invitation.id);
    return { user: withoutPassword(toUser(row)), invitation: toInvitation(invitation) };
  });

  const useEmailToken = db.transaction((hash: string, now: string): EmailTokenUse | undefined => {
    const token = sql(
      "UPDATE user_tokens SET used_at = ? WHERE hash = ? AND kind IN ('verify-email', 'change-email') AND used_at IS NULL AND expires_at > ? RETURNING kind, user_id, email",
    ).get(now, hash, now) as { kind: EmailTokenUse['kind']; user_id: bigint; email: string } | undefined;
    if (token === undefined) return undefined;
    const userId = Number(token.user_id);
    if (token.kind === 'verify-email') {
      const verified = sql('UPDATE users SET email_verified_at = coalesce(email_verified_at, ?) WHERE id = ? AND email = ? RETURNING account_id').get(now, userId, token.email) as
        | { account_id: bigint }
        | undefined;
      return verified && { kind: token.kind, userId, accountId: Number(verified.account_id), email: token.email };
    }
    const before = sql('SELECT email, account_id FROM users WHERE id = ?').get(userId) as { email: string; account_id: bigint } | undefined;
    if (before === undefined) return undefined;
    sql('UPDATE users SET email = ?, email_verified_at = ? WHERE id = ?').run(token.email, now, userId);
    sql("DELETE FROM user_tokens WHERE user_id = ? AND kind IN ('reset', 'verify-email', 'change-email') AND used_at IS NULL").run(userId);
    return { kind: token.kind, userId, accountId: Number(before.account_id), email: token.email, previousEmail: before.email };
  });

  const disable = db.transaction((userId: number, at: string): boolean => {
    const found = sql('UPDATE users SET disabled_at = coalesce(disabled_at, ?) WHERE id = ?').run(at, userId);
    sql('DELETE FROM user_sessions WHERE user_id = ?').run(userId);
    return found.changes > 0;
  });

  return {
    async create(user, verification) {
      try {
        return withoutPassword(toUser(createUser.immediate(user, verification)));
      } catch (error) {
        const constraint = sqliteConstraint(error);
        if (constraint === 'SQLITE_CONSTRAINT_UNIQUE') return 'email_taken';
        if (constraint === 'SQLITE_CONSTRAINT_FOREIGNKEY') throw new NotFoundError('account_not_found', `Account ${user.accountId} does not exist.`);
        throw error;
      }
    },
    async createInvited(tokenHash, now, user, verification) {
      try {
        return createInvited.immediate(tokenHash, now, user, verification);
      } catch (error) {
        // The whole transaction rolled back: the invitation is still pending.
        if (sqliteConstraint(error) === 'SQLITE_CONSTRAINT_UNIQUE') return 'email_taken';
        throw error;
      }
    },
    async findByEmail(email) {
      const row = sql(`SELECT ${COLUMNS} FROM users WHERE email = ?`).get(email) as UserRow | undefined;
      return row && toUser(row);
    },
    async findById(id) {
      const row = sql(`SELECT ${COLUMNS} FROM users WHERE id = ?`).get(id) as UserRow | undefined;
      return row && toUser(row);
    },
    async list() {
      const rows = sql(`SELECT ${COLUMNS} FROM users ORDER BY id`).all() as UserRow[];
      return rows.map((row) => withoutPassword(toUser(row)));
    },
    async setPasswordHash(userId, passwordHash, notice) {
      return setPasswordHash.immediate(userId, passwordHash, notice);
    },
    async disable(userId, at) {
      return disable.immediate(userId, at);
    },
    async createToken(token) {
      insertToken(token);
    },
    async createTokenWithMail(token, mail) {
      createTokenWithMail.immediate(token, mail);
    },
    async peekToken(hash, kind, now) {
      const row = sql('SELECT kind, origin, user_id FROM user_tokens WHERE hash = ? AND kind = ? AND used_at IS NULL AND expires_at > ?').get(hash, kind, now) as
        | GrantRow
        | undefined;
      return row && toGrant(row);
    },
    async consumeToken(hash, kind, now) {
      const row = sql(
        'UPDATE user_tokens SET used_at = ? WHERE hash = ? AND kind = ? AND used_at IS NULL AND expires_at > ? RETURNING kind, origin, user_id',
      ).get(now, hash, kind, now) as GrantRow | undefined;
      return row && toGrant(row);
    },
    async usePasswordReset(hash, passwordHash, now, notice) {
      return usePasswordReset.immediate(hash, passwordHash, now, notice);
    },
    async useEmailToken(hash, now) {
      try {
        return useEmailToken.immediate(hash, now);
      } catch (error) {
        if (sqliteConstraint(error) === 'SQLITE_CONSTRAINT_UNIQUE') return 'email_taken';
        throw error;
      }
    },
  };
}
