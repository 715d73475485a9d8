import type Database from 'better-sqlite3';
import type { NewMail } from '../../mail/mail-repository.js';
import type { CompletedSignUp, NewPendingSignUp, PendingSignUp, SignUpsRepository } from '../../users/sign-up/sign-ups-repository.js';
import { withoutPassword } from '../../users/users-repository.js';
import { toUser, type UserRow } from '../user-row-mappers.js';
import { insertMail } from './sqlite-mail-repository.js';
import { statementCache } from './sqlite-util.js';

interface SignUpRow {
  email: string;
  password_hash: string;
  store_name: string;
  created_at: string;
  expires_at: string;
}

const COLUMNS = 'email, password_hash, store_name, created_at, expires_at';
const USER_COLUMNS = 'id, account_id, email, password_hash, created_at, disabled_at, email_verified_at';

const toPending = (row: SignUpRow): PendingSignUp => ({
  email: row.email,
  passwordHash: row.password_hash,
  storeName: row.store_name,
  createdAt: row.created_at,
  expiresAt: row.expires_at,
});

export function createSqliteSignUpsRepository(db: Database.Database): SignUpsRepository {
  const sql = statementCache(db);

  const start = db.transaction((signUp: NewPendingSignUp, mail: NewMail) => {
    sql('DELETE FROM sign_ups WHERE expires_at <= ?').run(signUp.createdAt);
    sql(
      `INSERT INTO sign_ups (token_hash, ${COLUMNS}) VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (email) DO UPDATE SET token_hash = excluded.token_hash, password_hash = excluded.password_hash,
         store_name = excluded.store_name, created_at = excluded.created_at, expires_at = excluded.expires_at`,
    ).run(signUp.tokenHash, signUp.email, signUp.passwordHash, signUp.storeName, signUp.createdAt, signUp.expiresAt);
    insertMail(sql, [mail]);
  });

  // Immediate (the writer lock from the first statement): the check for a user with the address and the inserts see one state.
  const complete = db.transaction((tokenHash: string, now: string): CompletedSignUp | 'email_taken' | undefined => {
    const row = sql(`DELETE FROM sign_ups WHERE token_hash = ? AND expires_at > ? RETURNING ${COLUMNS}`).get(tokenHash, now) as SignUpRow | undefined;
    if (row === undefined) return undefined;
    if (sql('SELECT 1 FROM users WHERE email = ?').get(row.email) !== undefined) return 'email_taken';
    const account = sql('INSERT INTO accounts (name, created_at) VALUES (?, ?) RETURNING id').get(row.store_name, now) as { id: bigint };
    const user = sql(`INSERT INTO users (account_id, email, password_hash, created_at, email_verified_at) VALUES (?, ?, ?, ?, ?) RETURNING ${USER_COLUMNS}`).get(
      account.id,
      row.email,
      row.password_hash,
      now,
      now,
    ) as UserRow;
    sql("INSERT INTO memberships (user_id, account_id, role, created_at) VALUES (?, ?, 'owner', ?)").run(user.id, account.id, now);
    return { user: withoutPassword(toUser(user)), storeName: row.store_name };
  });

  return {
    async start(signUp, mail) {
      start.immediate(signUp, mail);
    },
    async peek(tokenHash, now) {
      const row = sql(`SELECT ${COLUMNS} FROM sign_ups WHERE token_hash = ? AND expires_at > ?`).get(tokenHash, now) as SignUpRow | undefined;
      return row && toPending(row);
    },
    async complete(tokenHash, now) {
      return complete.immediate(tokenHash, now);
    },
  };
}
