import type Database from 'better-sqlite3';
import type { SessionsRepository } from '../../users/sessions-repository.js';
import { toSessionRecord, toSessionSummary, type SessionRow, type SessionSummaryRow } from '../user-row-mappers.js';
import { statementCache } from './sqlite-util.js';

export function createSqliteSessionsRepository(db: Database.Database): SessionsRepository {
  const sql = statementCache(db);
  return {
    async create(session) {
      sql('INSERT INTO user_sessions (id_hash, user_id, created_at, last_seen_at, expires_at, handle, device, address) VALUES (?, ?, ?, ?, ?, ?, ?, ?)').run(
        session.idHash,
        session.userId,
        session.createdAt,
        session.createdAt,
        session.expiresAt,
        session.handle,
        session.device,
        session.address,
      );
    },
    async find(idHash) {
      const row = sql(
        `SELECT s.id_hash, s.created_at AS session_created_at, s.last_seen_at, s.expires_at,
                u.id, u.account_id, u.email, u.created_at, u.disabled_at, u.email_verified_at, a.name AS account_name
           FROM user_sessions s JOIN users u ON u.id = s.user_id JOIN accounts a ON a.id = u.account_id
          WHERE s.id_hash = ?`,
      ).get(idHash) as SessionRow | undefined;
      return row && toSessionRecord(row);
    },
    async touch(idHash, at) {
      sql('UPDATE user_sessions SET last_seen_at = ? WHERE id_hash = ? AND last_seen_at < ?').run(at, idHash, at);
    },
    async delete(idHash) {
      sql('DELETE FROM user_sessions WHERE id_hash = ?').run(idHash);
    },
    async listForUser(userId, currentIdHash) {
      const rows = sql(
        `SELECT handle, device, address, created_at, last_seen_at, expires_at, id_hash = ? AS current
           FROM user_sessions WHERE user_id = ? ORDER BY created_at DESC, handle`,
      ).all(currentIdHash, userId) as SessionSummaryRow[];
      return rows.map(toSessionSummary);
    },
    async deleteByHandle(userId, handle) {
      return sql('DELETE FROM user_sessions WHERE user_id = ? AND handle = ?').run(userId, handle).changes > 0;
    },
    async deleteForUser(userId, keepIdHash) {
      return sql('DELETE FROM user_sessions WHERE user_id = ? AND id_hash IS NOT ?').run(userId, keepIdHash ?? null).changes;
    },
  };
}
