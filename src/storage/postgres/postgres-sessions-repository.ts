import type { SessionsRepository } from '../../users/sessions-repository.js';
import { toSessionRecord, toSessionSummary, type SessionRow, type SessionSummaryRow } from '../user-row-mappers.js';
import type { Sql } from './postgres-sql.js';

/** A qualified timestamptz column as ISO 8601 UTC text, under `alias` (isoTimestamp aliases to the bare column name). */
const iso = (column: string, alias: string) => `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS ${alias}`;

export function createPostgresSessionsRepository(sql: Sql): SessionsRepository {
  return {
    async create(session) {
      // The account: the one asked for, else the user's own while they are a member of it, else the first they joined.
      const [stored] = await sql<{ account_id: string }>(
        `INSERT INTO user_sessions (id_hash, user_id, created_at, last_seen_at, expires_at, handle, device, address, account_id)
         SELECT $1, $2, $3, $3, $4, $5, $6, $7, m.account_id FROM memberships m JOIN users u ON u.id = m.user_id
          WHERE m.user_id = $2 AND ($8::bigint IS NULL OR m.account_id = $8)
          ORDER BY m.account_id = u.account_id DESC, m.created_at, m.account_id LIMIT 1
         RETURNING account_id`,
        [session.idHash, session.userId, session.createdAt, session.expiresAt, session.handle, session.device, session.address, session.accountId ?? null],
      );
      return stored === undefined ? undefined : Number(stored.account_id);
    },
    async find(idHash) {
      const [row] = await sql<SessionRow>(
        `SELECT s.id_hash, ${iso('s.created_at', 'session_created_at')}, ${iso('s.last_seen_at', 'last_seen_at')}, ${iso('s.expires_at', 'expires_at')},
                ${iso('COALESCE(s.authenticated_at, s.created_at)', 'authenticated_at')},
                u.id, s.account_id, u.email, ${iso('u.created_at', 'created_at')}, ${iso('u.disabled_at', 'disabled_at')}, ${iso('u.email_verified_at', 'email_verified_at')},
                a.name AS account_name, m.role
           FROM user_sessions s JOIN users u ON u.id = s.user_id
           JOIN memberships m ON m.user_id = s.user_id AND m.account_id = s.account_id JOIN accounts a ON a.id = s.account_id
          WHERE s.id_hash = $1`,
        [idHash],
      );
      return row && toSessionRecord(row);
    },
    async switchAccount(idHash, userId, accountId) {
      const switched = await sql(
        'UPDATE user_sessions SET account_id = $3 WHERE id_hash = $1 AND user_id = $2 AND EXISTS (SELECT 1 FROM memberships WHERE user_id = $2 AND account_id = $3) RETURNING 1',
        [idHash, userId, accountId],
      );
      return switched.length > 0;
    },
    async markAuthenticated(idHash, at) {
      await sql('UPDATE user_sessions SET authenticated_at = $2 WHERE id_hash = $1 AND COALESCE(authenticated_at, created_at) < $2', [idHash, at]);
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
