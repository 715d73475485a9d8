import type { TwoStepRepository } from '../../users/two-step/two-step-repository.js';
import { toStoredAuthenticator, type AuthenticatorRow } from '../two-step-rows.js';
import { isoTimestamp, type Sql, type Transaction } from './postgres-sql.js';

const COLUMNS = `user_id, sealed_secret, ${isoTimestamp('confirmed_at')}, last_step, ${isoTimestamp('created_at')}`;

/** The user's recovery codes become `codeHashes`, unused; run inside a transaction that holds the authenticator's row. */
async function replaceCodes(tx: Sql, userId: number, codeHashes: readonly string[], at: string): Promise<void> {
  await tx('DELETE FROM user_recovery_codes WHERE user_id = $1', [userId]);
  await tx('INSERT INTO user_recovery_codes (user_id, code_hash, created_at) SELECT $1::bigint, unnest($2::text[]), $3::timestamptz', [userId, codeHashes, at]);
}

/*
 * Every transaction here takes the user's authenticator row first (the
 * conditional UPDATE, the DELETE or SELECT … FOR UPDATE), so a confirmation,
 * a replacement of the codes and a removal of one user wait for one another
 * in one order and each sees the state the previous one committed.
 */
export function createPostgresTwoStepRepository(sql: Sql, transaction: Transaction): TwoStepRepository {
  return {
    async begin(userId, sealedSecret, at) {
      // One statement: a confirmed authenticator is left as it is (the upsert's WHERE), and then nothing is returned.
      const started = await sql(
        `INSERT INTO user_authenticators (user_id, sealed_secret, last_step, created_at) VALUES ($1, $2, 0, $3)
         ON CONFLICT (user_id) DO UPDATE SET sealed_secret = excluded.sealed_secret, last_step = 0, created_at = excluded.created_at
         WHERE user_authenticators.confirmed_at IS NULL
         RETURNING user_id`,
        [userId, sealedSecret, at],
      );
      return started.length === 0 ? 'already_on' : 'started';
    },
    async find(userId) {
      const [row] = await sql<AuthenticatorRow>(`SELECT ${COLUMNS} FROM user_authenticators WHERE user_id = $1`, [userId]);
      return row && toStoredAuthenticator(row);
    },
    async confirm(userId, step, recoveryCodeHashes, at) {
      return transaction(async (tx) => {
        const confirmed = await tx(
          'UPDATE user_authenticators SET confirmed_at = $2, last_step = $3 WHERE user_id = $1 AND confirmed_at IS NULL AND last_step < $3 RETURNING user_id',
          [userId, at, step],
        );
        if (confirmed.length === 0) return false;
        await replaceCodes(tx, userId, recoveryCodeHashes, at);
        return true;
      });
    },
    async useStep(userId, step) {
      const used = await sql('UPDATE user_authenticators SET last_step = $2 WHERE user_id = $1 AND confirmed_at IS NOT NULL AND last_step < $2 RETURNING user_id', [
        userId,
        step,
      ]);
      return used.length > 0;
    },
    async useRecoveryCode(userId, codeHash, at) {
      const used = await sql('UPDATE user_recovery_codes SET used_at = $3 WHERE user_id = $1 AND code_hash = $2 AND used_at IS NULL RETURNING user_id', [
        userId,
        codeHash,
        at,
      ]);
      return used.length > 0;
    },
    async unusedRecoveryCodes(userId) {
      const [row] = await sql<{ unused: bigint }>('SELECT count(*) AS unused FROM user_recovery_codes WHERE user_id = $1 AND used_at IS NULL', [userId]);
      return Number(row?.unused ?? 0);
    },
    async replaceRecoveryCodes(userId, codeHashes, at) {
      return transaction(async (tx) => {
        const confirmed = await tx('SELECT 1 FROM user_authenticators WHERE user_id = $1 AND confirmed_at IS NOT NULL FOR UPDATE', [userId]);
        if (confirmed.length === 0) return false;
        await replaceCodes(tx, userId, codeHashes, at);
        return true;
      });
    },
    async remove(userId) {
      return transaction(async (tx) => {
        const found = await tx('DELETE FROM user_authenticators WHERE user_id = $1 RETURNING user_id', [userId]);
        await tx('DELETE FROM user_recovery_codes WHERE user_id = $1', [userId]);
        await tx('DELETE FROM pending_sign_ins WHERE user_id = $1', [userId]);
        return found.length > 0;
      });
    },
    async createPendingSignIn(pending) {
      // One statement: the prune and the insert commit together.
      await sql(
        `WITH pruned AS (DELETE FROM pending_sign_ins WHERE expires_at <= $3)
         INSERT INTO pending_sign_ins (token_hash, user_id, created_at, expires_at) VALUES ($1, $2, $3, $4)`,
        [pending.tokenHash, pending.userId, pending.createdAt, pending.expiresAt],
      );
    },
    async findPendingSignIn(tokenHash, now) {
      const [row] = await sql<{ user_id: bigint }>('SELECT user_id FROM pending_sign_ins WHERE token_hash = $1 AND expires_at > $2', [tokenHash, now]);
      return row && Number(row.user_id);
    },
    async endPendingSignIns(userId) {
      await sql('DELETE FROM pending_sign_ins WHERE user_id = $1', [userId]);
    },
    async consumePendingSignIn(tokenHash, now) {
      // Deleted even when expired: a dead row has nothing left to answer.
      const [row] = await sql<{ user_id: bigint; live: boolean }>('DELETE FROM pending_sign_ins WHERE token_hash = $1 RETURNING user_id, expires_at > $2 AS live', [
        tokenHash,
        now,
      ]);
      return row === undefined || !row.live ? undefined : Number(row.user_id);
    },
  };
}
