import { NotFoundError } from '../../errors/errors.js';
import { withoutPassword, type NewOneTimeToken, type UsersRepository } from '../../users/users-repository.js';
import { insertMail } from './postgres-mail-repository.js';
import { toUser, type UserRow } from '../user-row-mappers.js';
import { FOREIGN_KEY_VIOLATION, sqlState, UNIQUE_VIOLATION } from './postgres-errors.js';
import { isoTimestamp, type Sql, type Transaction } from './postgres-sql.js';

const COLUMNS = `id, account_id, email, password_hash, ${isoTimestamp('created_at')}, ${isoTimestamp('disabled_at')}`;

interface GrantRow {
  kind: 'invite' | 'reset';
  origin: 'operator' | 'user';
  account_id: bigint | null;
  user_id: bigint | null;
}

const toGrant = (row: GrantRow) => ({
  kind: row.kind,
  origin: row.origin,
  ...(row.account_id === null ? {} : { accountId: Number(row.account_id) }),
  ...(row.user_id === null ? {} : { userId: Number(row.user_id) }),
});

/** The new hash, and no outstanding reset link of the user any more; run inside a transaction. */
async function setPassword(tx: Sql, userId: number, passwordHash: string): Promise<boolean> {
  const found = await tx('UPDATE users SET password_hash = $1 WHERE id = $2 RETURNING id', [passwordHash, userId]);
  await tx("DELETE FROM user_tokens WHERE user_id = $1 AND kind = 'reset' AND used_at IS NULL", [userId]);
  return found.length > 0;
}

async function insertToken(tx: Sql, token: NewOneTimeToken): Promise<void> {
  await tx('INSERT INTO user_tokens (hash, kind, origin, account_id, user_id, created_at, expires_at) VALUES ($1, $2, $3, $4, $5, $6, $7)', [
    token.hash,
    token.kind,
    token.origin ?? 'operator',
    token.accountId ?? null,
    token.userId ?? null,
    token.createdAt,
    token.expiresAt,
  ]);
}

export function createPostgresUsersRepository(sql: Sql, transaction: Transaction): UsersRepository {
  return {
    async create(user) {
      try {
        const [row] = await sql<UserRow>(`INSERT INTO users (account_id, email, password_hash, created_at) VALUES ($1, $2, $3, $4) RETURNING ${COLUMNS}`, [
          user.accountId,
          user.email,
          user.passwordHash,
          user.createdAt,
        ]);
        if (row === undefined) throw new Error('INSERT … RETURNING returned no row');
        return withoutPassword(toUser(row));
      } catch (error) {
        if (sqlState(error) === UNIQUE_VIOLATION) return 'email_taken';
        if (sqlState(error) === FOREIGN_KEY_VIOLATION) throw new NotFoundError('account_not_found', `Account ${user.accountId} does not exist.`);
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
    async setPasswordHash(userId, passwordHash) {
      return transaction((tx) => setPassword(tx, userId, passwordHash));
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
        await insertMail(tx, [mail]);
      });
    },
    async peekToken(hash, kind, now) {
      const [row] = await sql<GrantRow>('SELECT kind, origin, account_id, user_id FROM user_tokens WHERE hash = $1 AND kind = $2 AND used_at IS NULL AND expires_at > $3', [
        hash,
        kind,
        now,
      ]);
      return row && toGrant(row);
    },
    async consumeToken(hash, kind, now) {
      const [row] = await sql<GrantRow>(
        'UPDATE user_tokens SET used_at = $3 WHERE hash = $1 AND kind = $2 AND used_at IS NULL AND expires_at > $3 RETURNING kind, origin, account_id, user_id',
        [hash, kind, now],
      );
      return row && toGrant(row);
    },
    async usePasswordReset(hash, passwordHash, now) {
      return transaction(async (tx) => {
        // The user's row first, as a password change takes it: uses of two links of one user (or a use and a change) wait for each other instead of deadlocking on the token rows.
        await tx("SELECT id FROM users WHERE id = (SELECT user_id FROM user_tokens WHERE hash = $1 AND kind = 'reset') FOR UPDATE", [hash]);
        const [row] = await tx<{ user_id: bigint }>(
          "UPDATE user_tokens SET used_at = $2 WHERE hash = $1 AND kind = 'reset' AND used_at IS NULL AND expires_at > $2 RETURNING user_id",
          [hash, now],
        );
        if (row === undefined) return undefined;
        const userId = Number(row.user_id);
        return (await setPassword(tx, userId, passwordHash)) ? userId : undefined;
      });
    },
  };
}
