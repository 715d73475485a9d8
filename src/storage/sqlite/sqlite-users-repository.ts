import type Database from 'better-sqlite3';
import { NotFoundError } from '../../errors/errors.js';
import type { NewMail } from '../../mail/mail-repository.js';
import { withoutPassword, type NewOneTimeToken, type UsersRepository } from '../../users/users-repository.js';
import { insertMail } from './sqlite-mail-repository.js';
import { toUser, type UserRow } from '../user-row-mappers.js';
import { sqliteConstraint, statementCache } from './sqlite-util.js';

const COLUMNS = 'id, account_id, email, password_hash, created_at, disabled_at';

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

export function createSqliteUsersRepository(db: Database.Database): UsersRepository {
  const sql = statementCache(db);

  /** The new hash, and no outstanding reset link of the user any more; run inside a transaction. */
  const setPassword = (userId: number, passwordHash: string): boolean => {
    const found = sql('UPDATE users SET password_hash = ? WHERE id = ?').run(passwordHash, userId).changes > 0;
    sql("DELETE FROM user_tokens WHERE user_id = ? AND kind = 'reset' AND used_at IS NULL").run(userId);
    return found;
  };
  const setPasswordHash = db.transaction(setPassword);
  const usePasswordReset = db.transaction((hash: string, passwordHash: string, now: string): number | undefined => {
    const row = sql("UPDATE user_tokens SET used_at = ? WHERE hash = ? AND kind = 'reset' AND used_at IS NULL AND expires_at > ? RETURNING user_id").get(now, hash, now) as
      | { user_id: bigint }
      | undefined;
    if (row === undefined) return undefined;
    const userId = Number(row.user_id);
    return setPassword(userId, passwordHash) ? userId : undefined;
  });

  const insertToken = (token: NewOneTimeToken): void => {
    sql('INSERT INTO user_tokens (hash, kind, origin, account_id, user_id, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?)').run(
      token.hash,
      token.kind,
      token.origin ?? 'operator',
      token.accountId ?? null,
      token.userId ?? null,
      token.createdAt,
      token.expiresAt,
    );
  };
  const createTokenWithMail = db.transaction((token: NewOneTimeToken, mail: NewMail) => {
    insertToken(token);
    insertMail(sql, [mail]);
  });

  const disable = db.transaction((userId: number, at: string): boolean => {
    const found = sql('UPDATE users SET disabled_at = coalesce(disabled_at, ?) WHERE id = ?').run(at, userId);
    sql('DELETE FROM user_sessions WHERE user_id = ?').run(userId);
    return found.changes > 0;
  });

  return {
    async create(user) {
      try {
        const row = sql(`INSERT INTO users (account_id, email, password_hash, created_at) VALUES (?, ?, ?, ?) RETURNING ${COLUMNS}`).get(
          user.accountId,
          user.email,
          user.passwordHash,
          user.createdAt,
        ) as UserRow;
        return withoutPassword(toUser(row));
      } catch (error) {
        const constraint = sqliteConstraint(error);
        if (constraint === 'SQLITE_CONSTRAINT_UNIQUE') return 'email_taken';
        if (constraint === 'SQLITE_CONSTRAINT_FOREIGNKEY') throw new NotFoundError('account_not_found', `Account ${user.accountId} does not exist.`);
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
    async setPasswordHash(userId, passwordHash) {
      return setPasswordHash.immediate(userId, passwordHash);
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
      const row = sql('SELECT kind, origin, account_id, user_id FROM user_tokens WHERE hash = ? AND kind = ? AND used_at IS NULL AND expires_at > ?').get(hash, kind, now) as
        | GrantRow
        | undefined;
      return row && toGrant(row);
    },
    async consumeToken(hash, kind, now) {
      const row = sql(
        'UPDATE user_tokens SET used_at = ? WHERE hash = ? AND kind = ? AND used_at IS NULL AND expires_at > ? RETURNING kind, origin, account_id, user_id',
      ).get(now, hash, kind, now) as GrantRow | undefined;
      return row && toGrant(row);
    },
    async usePasswordReset(hash, passwordHash, now) {
      return usePasswordReset.immediate(hash, passwordHash, now);
    },
  };
}
