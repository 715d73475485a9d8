import type BetterSqlite3 from 'better-sqlite3';
import type { IdempotencyClaim, IdempotencyRepository, StoredResponse } from '../../idempotency/idempotency-repository.js';
import { HELD_COLUMNS, heldOf, type HeldRow } from '../idempotency-rows.js';
import { statementCache, type Prepare } from './sqlite-util.js';

const COMPLETE = `UPDATE idempotency_keys SET state = 'complete', response_status = ?, response_headers = ?, response_body = ?
  WHERE account_id = ? AND key = ? AND token = ? AND state = 'in_progress'`;

/** Completes a claim inside the caller's transaction (the order insert's): false when the claim was lost. */
export function completeIdempotencyClaim(sql: Prepare, claim: IdempotencyClaim, response: StoredResponse): boolean {
  const { changes } = sql(COMPLETE).run(response.status, JSON.stringify(response.headers), response.body, claim.accountId, claim.key, claim.token);
  return changes === 1;
}

export function createSqliteIdempotencyRepository(db: BetterSqlite3.Database): IdempotencyRepository {
  const sql = statementCache(db);
  // One write transaction: SQLite's write lock decides between concurrent claims, in this process or another.
  const claim = db.transaction((args: Parameters<IdempotencyRepository['claim']>[0]) => {
    const { accountId, key, token, fingerprint, now, lockedUntil, expiresAt } = args;
    const taken = sql(
      `INSERT INTO idempotency_keys (account_id, key, fingerprint, state, token, locked_until, created_at, expires_at)
       VALUES (?, ?, ?, 'in_progress', ?, ?, ?, ?)
       ON CONFLICT (account_id, key) DO UPDATE SET fingerprint = excluded.fingerprint, state = 'in_progress', token = excluded.token,
         locked_until = excluded.locked_until, response_status = NULL, response_headers = NULL, response_body = NULL,
         created_at = excluded.created_at, expires_at = excluded.expires_at
       WHERE idempotency_keys.expires_at <= excluded.created_at
          OR (idempotency_keys.state = 'in_progress' AND idempotency_keys.locked_until <= excluded.created_at)
       RETURNING token`,
    ).get(accountId, key, fingerprint, token, lockedUntil, now, expiresAt);
    if (taken !== undefined) return { claimed: true as const };
    const row = sql(
      `SELECT ${HELD_COLUMNS} FROM idempotency_keys WHERE account_id = ? AND key = ?`,
    ).get(accountId, key) as HeldRow | undefined;
    if (row === undefined) throw new Error('an idempotency key neither inserted nor found');
    return { claimed: false as const, held: heldOf(row) };
  });
  return {
    async claim(args) {
      return claim.immediate(args);
    },
    async complete(claimed, response) {
      return completeIdempotencyClaim(sql, claimed, response);
    },
    async release({ accountId, key, token }) {
      sql(`DELETE FROM idempotency_keys WHERE account_id = ? AND key = ? AND token = ? AND state = 'in_progress'`).run(accountId, key, token);
    },
    async pruneExpired(now, limit) {
      return sql('DELETE FROM idempotency_keys WHERE (account_id, key) IN (SELECT account_id, key FROM idempotency_keys WHERE expires_at <= ? LIMIT ?)').run(
        now,
        limit,
      ).changes;
    },
  };
}
