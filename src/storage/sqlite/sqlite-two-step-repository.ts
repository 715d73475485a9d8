import type Database from 'better-sqlite3';
import type { NewPendingSignIn, TwoStepRepository } from '../../users/two-step/two-step-repository.js';
import { toStoredAuthenticator, type AuthenticatorRow } from '../two-step-rows.js';
import { statementCache, type Prepare } from './sqlite-util.js';

const COLUMNS = 'user_id, sealed_secret, confirmed_at, last_step, created_at';

/** The user's recovery codes become `codeHashes`, unused; run inside a transaction. */
function replaceCodes(sql: Prepare, userId: number, codeHashes: readonly string[], at: string): void {
  sql('DELETE FROM user_recovery_codes WHERE user_id = ?').run(userId);
  const insert = sql('INSERT INTO user_recovery_codes (user_id, code_hash, created_at) VALUES (?, ?, ?)');
  for (const codeHash of codeHashes) insert.run(userId, codeHash, at);
}

/*
 * Every write that reads before it writes is an immediate transaction: it
 * holds SQLite's writer lock from its first statement, so two processes on
 * one file cannot both see the same state and both act on it.
 */
export function createSqliteTwoStepRepository(db: Database.Database): TwoStepRepository {
  const sql = statementCache(db);

  const confirm = db.transaction((userId: number, step: number, codeHashes: readonly string[], at: string): boolean => {
    const confirmed = sql('UPDATE user_authenticators SET confirmed_at = ?, last_step = ? WHERE user_id = ? AND confirmed_at IS NULL AND last_step < ?').run(
      at,
      step,
      userId,
      step,
    );
    if (confirmed.changes === 0) return false;
    replaceCodes(sql, userId, codeHashes, at);
    return true;
  });

  const replaceRecoveryCodes = db.transaction((userId: number, codeHashes: readonly string[], at: string): boolean => {
    if (sql('SELECT 1 FROM user_authenticators WHERE user_id = ? AND confirmed_at IS NOT NULL').get(userId) === undefined) return false;
    replaceCodes(sql, userId, codeHashes, at);
    return true;
  });

  const remove = db.transaction((userId: number): boolean => {
    const found = sql('DELETE FROM user_authenticators WHERE user_id = ?').run(userId).changes > 0;
    sql('DELETE FROM user_recovery_codes WHERE user_id = ?').run(userId);
    sql('DELETE FROM pending_sign_ins WHERE user_id = ?').run(userId);
    return found;
  });

  const createPendingSignIn = db.transaction((pending: NewPendingSignIn) => {
    sql('DELETE FROM pending_sign_ins WHERE expires_at <= ?').run(pending.createdAt);
    sql('INSERT INTO pending_sign_ins (token_hash, user_id, created_at, expires_at) VALUES (?, ?, ?, ?)').run(
      pending.tokenHash,
      pending.userId,
      pending.createdAt,
      pending.expiresAt,
    );
  });

  return {
    async begin(userId, sealedSecret, at) {
      // One statement: a confirmed authenticator is left as it is (the upsert's WHERE), and then nothing is returned.
      const started = sql(
        `INSERT INTO user_authenticators (user_id, sealed_secret, last_step, created_at) VALUES (?, ?, 0, ?)
         ON CONFLICT (user_id) DO UPDATE SET sealed_secret = excluded.sealed_secret, last_step = 0, created_at = excluded.created_at
         WHERE user_authenticators.confirmed_at IS NULL
         RETURNING user_id`,
      ).get(userId, sealedSecret, at);
      return started === undefined ? 'already_on' : 'started';
    },
    async find(userId) {
      const row = sql(`SELECT ${COLUMNS} FROM user_authenticators WHERE user_id = ?`).get(userId) as AuthenticatorRow | undefined;
      return row && toStoredAuthenticator(row);
    },
    async confirm(userId, step, recoveryCodeHashes, at) {
      return confirm.immediate(userId, step, recoveryCodeHashes, at);
    },
    async useStep(userId, step) {
      return sql('UPDATE user_authenticators SET last_step = ? WHERE user_id = ? AND confirmed_at IS NOT NULL AND last_step < ?').run(step, userId, step).changes > 0;
    },
    async useRecoveryCode(userId, codeHash, at) {
      return sql('UPDATE user_recovery_codes SET used_at = ? WHERE user_id = ? AND code_hash = ? AND used_at IS NULL').run(at, userId, codeHash).changes > 0;
    },
    async unusedRecoveryCodes(userId) {
      const row = sql('SELECT count(*) AS unused FROM user_recovery_codes WHERE user_id = ? AND used_at IS NULL').get(userId) as { unused: bigint };
      return Number(row.unused);
    },
    async replaceRecoveryCodes(userId, codeHashes, at) {
      return replaceRecoveryCodes.immediate(userId, codeHashes, at);
    },
    async remove(userId) {
      return remove.immediate(userId);
    },
    async createPendingSignIn(pending) {
      createPendingSignIn.immediate(pending);
    },
    async endPendingSignIns(userId) {
      sql('DELETE FROM pending_sign_ins WHERE user_id = ?').run(userId);
    },
    async findPendingSignIn(tokenHash, now) {
      const row = sql('SELECT user_id FROM pending_sign_ins WHERE token_hash = ? AND expires_at > ?').get(tokenHash, now) as { user_id: bigint } | undefined;
      return row && Number(row.user_id);
    },
    async consumePendingSignIn(tokenHash, now) {
      // Deleted even when expired: a dead row has nothing left to answer.
      const row = sql('DELETE FROM pending_sign_ins WHERE token_hash = ? RETURNING user_id, expires_at').get(tokenHash) as
        | { user_id: bigint; expires_at: string }
        | undefined;
      return row === undefined || row.expires_at <= now ? undefined : Number(row.user_id);
    },
  };
}
