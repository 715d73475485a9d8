import type { SessionsRepository } from '../../users/sessions-repository.js';
import { toSessionRecord, toSessionSummary, type SessionRow, type SessionSummaryRow } from '../user-row-mappers.js';
import type { Sql } from './postgres-sql.js';

/** A qualified timestamptz column as ISO 8601 UTC text, under `alias` (isoTimestamp aliases to the bare column name). */
const iso = (column: string, alias: string) => `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS ${alias}`;

export function createPostgresSessionsRepository(sql: Sql): SessionsRepository {
  return {
    async create(session) {
      await sql(
        'INSERT INTO user_sessions (id_hash, user_id, created_at, last_seen_at, expires_at, handle, device, address) VALUES ($1, $2, $3, $3, $4, $5, $6, $7)',
        [session.idHash, session.userId, session.createdAt, session.expiresAt, session.handle, session.device, session.address],
      );
    },
    async find(idHash) {
      const [row] = await sql<SessionRow>(
        `SELECT s.id_hash, ${iso('s.created_at', 'session_created_at')}, ${iso('s.last_seen_at', 'last_seen_at')}, ${iso('s.expires_at', 'expires_at')},
                u.id, u.account_id, u.email, ${iso('u.created_at', 'created_at')}, ${iso('u.disabled_at', 'disabled_at')}, ${iso('u.email_verified_at', 'email_verified_at')}, a.name AS account_name
           FROM user_sessions s JOIN users u ON u.id = s.user_id JOIN accounts a ON a.id = u.account_id
          WHERE s.id_hash = $1`,
        [idHash],
      );
      return row && toSessionRecord(row);
    },
    async touch(idHash, at) {
      await sql('UPDATE user_sessions SET last_seen_at = $2 WHERE id_hash = $1 AND last_seen_at < $2', [idHash, at]);
    },
    async delete(idHash) {
      await sql('DELETE FROM user_sessions WHERE id_hash = $1', [idHash]);
    },
    async listForUser(userId, currentIdHash) {
      const rows = await sql<SessionSummaryRow>(
        `SELECT handle, device, address, ${iso('s.created_at', 'created_at')}, ${iso('s.last_seen_at', 'last_seen_at')}, ${iso('s.expires_at', 'expires_at')},
                s.id_hash = $2 AS current
           FROM user_sessions s WHERE s.user_id = $1 ORDER BY s.created_at DESC, s.handle`,
        [userId, currentIdHash],
      );
      return rows.map(toSessionSummary);
    },
    async deleteByHandle(userId, handle) {
      const rows = await sql('DELETE FROM user_sessions WHERE user_id = $1 AND handle = $2 RETURNING handle', [userId, handle]);
      return rows.length > 0;
    },
    async deleteForUser(userId, keepIdHash) {
      const rows = await sql('DELETE FROM user_sessions WHERE user_id = $1 AND id_hash IS DISTINCT FROM $2 RETURNING id_hash', [userId, keepIdHash ?? null]);
      return rows.length;
    },
  };
}
