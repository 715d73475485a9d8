import type { IdempotencyClaim, IdempotencyRepository, StoredResponse } from '../../idempotency/idempotency-repository.js';
import { HELD_COLUMNS, heldOf, type HeldRow } from '../idempotency-rows.js';
import type { Sql } from './postgres-sql.js';

/** Completes a claim inside the caller's transaction (the order insert's): false when the claim was lost. */
export async function completeIdempotencyClaim(sql: Sql, claim: IdempotencyClaim, response: StoredResponse): Promise<boolean> {
  const rows = await sql(
    `UPDATE idempotency_keys SET state = 'complete', response_status = $1, response_headers = $2, response_body = $3
     WHERE account_id = $4 AND key = $5 AND token = $6 AND state = 'in_progress' RETURNING 1`,
    [response.status, JSON.stringify(response.headers), response.body, claim.accountId, claim.key, claim.token],
  );
  return rows.length === 1;
}

export function createPostgresIdempotencyRepository(sql: Sql): IdempotencyRepository {
  return {
    async claim({ accountId, key, token, fingerprint, now, lockedUntil, expiresAt }) {
      // A claim racing another's uncommitted insert waits for it (the unique
      // index), then sees its row: exactly one of them inserts.
      for (;;) {
        const taken = await sql(
          `INSERT INTO idempotency_keys (account_id, key, fingerprint, state, token, locked_until, created_at, expires_at)
           VALUES ($1, $2, $3, 'in_progress', $4, $5, $6, $7)
           ON CONFLICT (account_id, key) DO UPDATE SET fingerprint = excluded.fingerprint, state = 'in_progress', token = excluded.token,
             locked_until = excluded.locked_until, response_status = NULL, response_headers = NULL, response_body = NULL,
             created_at = excluded.created_at, expires_at = excluded.expires_at
           WHERE idempotency_keys.expires_at <= excluded.created_at
              OR (idempotency_keys.state = 'in_progress' AND idempotency_keys.locked_until <= excluded.created_at)
           RETURNING token`,
          [accountId, key, fingerprint, token, lockedUntil, now, expiresAt],
        );
        if (taken.length === 1) return { claimed: true };
        const [row] = await sql<HeldRow>(
          `SELECT ${HELD_COLUMNS} FROM idempotency_keys WHERE account_id = $1 AND key = $2`,
          [accountId, key],
        );
        // Pruned or released in between: claim again.
        if (row !== undefined) return { claimed: false, held: heldOf(row) };
      }
    },
    async complete(claim, response) {
      return completeIdempotencyClaim(sql, claim, response);
    },
    async release({ accountId, key, token }) {
      await sql(`DELETE FROM idempotency_keys WHERE account_id = $1 AND key = $2 AND token = $3 AND state = 'in_progress'`, [accountId, key, token]);
    },
    async pruneExpired(now, limit) {
      const rows = await sql(
        `DELETE FROM idempotency_keys WHERE ctid IN (SELECT ctid FROM idempotency_keys WHERE expires_at <= $1 LIMIT $2) RETURNING 1`,
        [now, limit],
      );
      return rows.length;
    },
  };
}
