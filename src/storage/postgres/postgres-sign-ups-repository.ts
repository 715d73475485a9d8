import type { CompletedSignUp, SignUpsRepository } from '../../users/sign-up/sign-ups-repository.js';
import { withoutPassword } from '../../users/users-repository.js';
import { toUser, type UserRow } from '../user-row-mappers.js';
import { sqlState, UNIQUE_VIOLATION } from './postgres-errors.js';
import { insertMail } from './postgres-mail-repository.js';
import { isoTimestamp, type Sql, type Transaction } from './postgres-sql.js';

interface SignUpRow {
  email: string;
  password_hash: string;
  store_name: string;
  created_at: string;
  expires_at: string;
}

const COLUMNS = `email, password_hash, store_name, ${isoTimestamp('created_at')}, ${isoTimestamp('expires_at')}`;
const USER_COLUMNS = `id, account_id, email, password_hash, ${isoTimestamp('created_at')}, ${isoTimestamp('disabled_at')}, ${isoTimestamp('email_verified_at')}`;

export function createPostgresSignUpsRepository(sql: Sql, transaction: Transaction): SignUpsRepository {
  return {
    async start(signUp, mail) {
      await transaction(async (tx) => {
        await tx('DELETE FROM sign_ups WHERE expires_at <= $1', [signUp.createdAt]);
        // One statement: ON CONFLICT takes the row lock, so of two sign-ups of one address at once the later one's token is the one kept.
        await tx(
          `INSERT INTO sign_ups (token_hash, email, password_hash, store_name, created_at, expires_at) VALUES ($1, $2, $3, $4, $5, $6)
           ON CONFLICT (email) DO UPDATE SET token_hash = excluded.token_hash, password_hash = excluded.password_hash,
             store_name = excluded.store_name, created_at = excluded.created_at, expires_at = excluded.expires_at`,
          [signUp.tokenHash, signUp.email, signUp.passwordHash, signUp.storeName, signUp.createdAt, signUp.expiresAt],
        );
        await insertMail(tx, [mail]);
      });
    },
    async peek(tokenHash, now) {
      const [row] = await sql<SignUpRow>(`SELECT ${COLUMNS} FROM sign_ups WHERE token_hash = $1 AND expires_at > $2`, [tokenHash, now]);
      return (
        row && { email: row.email, passwordHash: row.password_hash, storeName: row.store_name, createdAt: row.created_at, expiresAt: row.expires_at }
      );
    },
    async complete(tokenHash, now) {
      try {
        return await transaction(async (tx): Promise<CompletedSignUp | 'email_taken' | undefined> => {
          // The row stays locked until the commit: a concurrent completion of the same link waits, then finds it gone.
          const [row] = await tx<SignUpRow>(`DELETE FROM sign_ups WHERE token_hash = $1 AND expires_at > $2 RETURNING ${COLUMNS}`, [tokenHash, now]);
          if (row === undefined) return undefined;
          if ((await tx('SELECT 1 FROM users WHERE email = $1', [row.email])).length > 0) return 'email_taken';
          const [account] = await tx<{ id: bigint }>('INSERT INTO accounts (name, created_at) VALUES ($1, $2) RETURNING id', [row.store_name, now]);
          if (account === undefined) throw new Error('INSERT … RETURNING returned no row');
          const [user] = await tx<UserRow>(
            `INSERT INTO users (account_id, email, password_hash, created_at, email_verified_at) VALUES ($1, $2, $3, $4, $4) RETURNING ${USER_COLUMNS}`,
            [account.id, row.email, row.password_hash, now],
          );
          if (user === undefined) throw new Error('INSERT … RETURNING returned no row');
          await tx("INSERT INTO memberships (user_id, account_id, role, created_at) VALUES ($1, $2, 'owner', $3)", [user.id, account.id, now]);
          return { user: withoutPassword(toUser(user)), storeName: row.store_name };
        });
      } catch (error) {
        // Another user took the address between the check and the insert: everything rolled back, the sign-up left to expire.
        if (sqlState(error) === UNIQUE_VIOLATION) return 'email_taken';
        throw error;
      }
    },
  };
}
