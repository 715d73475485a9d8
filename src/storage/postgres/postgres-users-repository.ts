import { NotFoundError } from '../../errors/errors.js';
import { withoutPassword, type EmailTokenUse, type NewOneTimeToken, type NewUser, type OneTimeTokenKind, type SignUpVerification, type UsersRepository } from '../../users/users-repository.js';
import { insertMail } from './postgres-mail-repository.js';
import { INVITATION_COLUMNS } from './postgres-team-repository.js';
import { toUser, type UserRow } from '../user-row-mappers.js';
import { toInvitation, type InvitationRow } from '../team-rows.js';
import { FOREIGN_KEY_VIOLATION, sqlState, UNIQUE_VIOLATION } from './postgres-errors.js';
import { isoTimestamp, type Sql, type Transaction } from './postgres-sql.js';

const COLUMNS = `id, account_id, email, password_hash, ${isoTimestamp('created_at')}, ${isoTimestamp('disabled_at')}, ${isoTimestamp('email_verified_at')}`;

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

/** The new hash, and no outstanding reset link of the user any more; run inside a transaction. */
async function setPassword(tx: Sql, userId: number, passwordHash: string): Promise<boolean> {
  const found = await tx('UPDATE users SET password_hash = $1 WHERE id = $2 RETURNING id', [passwordHash, userId]);
  await tx("DELETE FROM user_tokens WHERE user_id = $1 AND kind = 'reset' AND used_at IS NULL", [userId]);
  return found.length > 0;
}

async function insertToken(tx: Sql, token: NewOneTimeToken): Promise<void> {
  await tx('INSERT INTO user_tokens (hash, kind, origin, user_id, email, created_at, expires_at) VALUES ($1, $2, $3, $4, $5, $6, $7)', [
    token.hash,
    token.kind,
    token.origin ?? 'operator',
    token.userId,
    token.email ?? null,
    token.createdAt,
    token.expiresAt,
  ]);
}

/** Uses a verify-email or change-email token (UsersRepository.useEmailToken); run inside a transaction. */
async function useEmailToken(tx: Sql, hash: string, now: string): Promise<EmailTokenUse | undefined> {
  // The user's row first, as a password change takes it: a change of address and a reset of one user wait for each other.
  const [before] = await tx<{ id: bigint; account_id: bigint; email: string }>(
    "SELECT id, account_id, email FROM users WHERE id = (SELECT user_id FROM user_tokens WHERE hash = $1 AND kind IN ('verify-email', 'change-email')) FOR UPDATE",
    [hash],
  );
  const [token] = await tx<{ kind: EmailTokenUse['kind']; email: string }>(
    "UPDATE user_tokens SET used_at = $2 WHERE hash = $1 AND kind IN ('verify-email', 'change-email') AND used_at IS NULL AND expires_at > $2 RETURNING kind, email",
    [hash, now],
  );
  if (before === undefined || token === undefined) return undefined;
  const userId = Number(before.id);
  const accountId = Number(before.account_id);
  if (token.kind === 'verify-email') {
    const verified = await tx('UPDATE users SET email_verified_at = coalesce(email_verified_at, $1) WHERE id = $2 AND email = $3 RETURNING id', [now, userId, token.email]);
    return verified.length > 0 ? { kind: token.kind, userId, accountId, email: token.email } : undefined;
  }
  await tx('UPDATE users SET email = $1, email_verified_at = $2 WHERE id = $3', [token.email, now, userId]);
  await tx("DELETE FROM user_tokens WHERE user_id = $1 AND kind IN ('reset', 'verify-email', 'change-email') AND used_at IS NULL", [userId]);
  return { kind: token.kind, userId, accountId, email: token.email, previousEmail: before.email };
}

/** The user, their first membership and their verification link; run inside a transaction (a taken email fails it, rolling it back). */
async function insertUser(tx: Sql, user: NewUser, verification: SignUpVerification | undefined): Promise<UserRow> {
  const [inserted] = await tx<UserRow>(`INSERT INTO users (account_id, email, password_hash, created_at) VALUES ($1, $2, $3, $4) RETURNING ${COLUMNS}`, [
    user.accountId,
    user.email,
    user.passwordHash,
    user.createdAt,
  ]);
  if (inserted === undefined) throw new Error('INSERT … RETURNING returned no row');
  await tx('INSERT INTO memberships (user_id, account_id, role, created_at) VALUES ($1, $2, $3, $4)', [inserted.id, user.accountId, user.role, user.createdAt]);
  if (verification !== undefined) {
    const { mail, ...token } = verification;
    await insertToken(tx, { ...token, kind: 'verify-email', origin: 'user', userId: Number(inserted.id), email: user.email });
    await insertMail(tx, [mail]);
  }
  return inserted;
}

export function createPostgresUsersRepository(sql: Sql, transaction: Transaction): UsersRepository {
  return {
    async create(user, verification) {
      try {
        return withoutPassword(toUser(await transaction((tx) => insertUser(tx, user, verification))));
      } catch (error) {
        if (sqlState(error) === UNIQUE_VIOLATION) return 'email_taken';
        if (sqlState(error) === FOREIGN_KEY_VIOLATION) throw new NotFoundError('account_not_found', `Account ${user.accountId} does not exist.`);
        throw error;
      }
    },
    async createInvited(tokenHash, now, user, verification) {
      try {
        return await transaction(async (tx) => {
          // The invitation's row stays locked until the commit: a concurrent use waits, then finds it used (or, after a rollback, pending).
          const [invitation] = await tx<InvitationRow>(
            `UPDATE invitations SET accepted_at = $2 WHERE token_hash = $1 AND accepted_at IS NULL AND revoked_at IS NULL AND expires_at > $2 RETURNING ${INVITATION_COLUMNS}`,
            [tokenHash, now],
          );
          if (invitation === undefined) return 'invitation_invalid' as const;
          const row = await insertUser(tx, { ...user, accountId: Number(invitation.account_id), role: invitation.role }, verification);
          await tx('UPDATE invitations SET accepted_by = $1 WHERE id = $2', [row.id, invitation.id]);
          return { user: withoutPassword(toUser(row)), invitation: toInvitation(invitation) };
        });
      } catch (error) {
        // The whole transaction rolled back: the invitation is still pending.
        if (sqlState(error) === UNIQUE_VIOLATION) return 'email_taken';
        throw error;
      }
    },
    async findByEmail(email) {
      const [row] = await sql<UserRow>(`SELECT ${COLUMNS} FROM users WHERE email = $1`, [email]);
      return row && toUser(row);
    },
    async findById(id) {
      const [row] = await sql<UserRow>(`SELECT ${COLUMNS} FROM users WHERE id = $1`, [id]);
      return row && toUser(row);
    },
    async list() {
      const rows = await sql<UserRow>(`SELECT ${COLUMNS} FROM users ORDER BY id`);
      return rows.map((row) => withoutPassword(toUser(row)));
    },
    async setPasswordHash(userId, passwordHash, notice) {
      return transaction(async (tx) => {
        const found = await setPassword(tx, userId, passwordHash);
        if (found && notice !== undefined) await insertMail(tx, [notice]);
        return found;
      });
    },
    async disable(userId, at) {
      return transaction(async (tx) => {
        const found = await tx('UPDATE users SET disabled_at = coalesce(disabled_at, $1) WHERE id = $2 RETURNING id', [at, userId]);
        await tx('DELETE FROM user_sessions WHERE user_id = $1', [userId]);
        return found.length > 0;
      });
    },
    async createToken(token) {
      await insertToken(sql, token);
    },
    async createTokenWithMail(token, mail) {
      await transaction(async (tx) => {
        await insertToken(tx, token);
        await insertMail(tx, [mail].flat());
      });
    },
    async peekToken(hash, kind, now) {
      const [row] = await sql<GrantRow>('SELECT kind, origin, user_id FROM user_tokens WHERE hash = $1 AND kind = $2 AND used_at IS NULL AND expires_at > $3', [
        hash,
        kind,
        now,
      ]);
      return row && toGrant(row);
    },
    async consumeToken(hash, kind, now) {
      const [row] = await sql<GrantRow>(
        'UPDATE user_tokens SET used_at = $3 WHERE hash = $1 AND kind = $2 AND used_at IS NULL AND expires_at > $3 RETURNING kind, origin, user_id',
        [hash, kind, now],
      );
      return row && toGrant(row);
    },
    async usePasswordReset(hash, passwordHash, now, notice) {
      return transaction(async (tx) => {
        // The user's row first, as a password change takes it: uses of two links of one user (or a use and a change) wait for each other instead of deadlocking on the token rows.
        await tx("SELECT id FROM users WHERE id = (SELECT user_id FROM user_tokens WHERE hash = $1 AND kind = 'reset') FOR UPDATE", [hash]);
        const [row] = await tx<{ user_id: bigint }>(
          "UPDATE user_tokens SET used_at = $2 WHERE hash = $1 AND kind = 'reset' AND used_at IS NULL AND expires_at > $2 RETURNING user_id",
          [hash, now],
        );
        if (row === undefined) return undefined;
        const userId = Number(row.user_id);
        if (!(await setPassword(tx, userId, passwordHash))) return undefined;
        if (notice !== undefined) await insertMail(tx, [notice]);
        return userId;
      });
    },
    async useEmailToken(hash, now) {
      try {
        return await transaction((tx) => useEmailToken(tx, hash, now));
      } catch (error) {
        if (sqlState(error) === UNIQUE_VIOLATION) return 'email_taken';
        throw error;
      }
    },
  };
}
