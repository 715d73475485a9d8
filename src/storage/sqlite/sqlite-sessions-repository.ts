import type Database from 'better-sqlite3';
import type { SessionsRepository } from '../../users/sessions-repository.js';
import { toSessionRecord, toSessionSummary, type SessionRow, type SessionSummaryRow } from '../user-row-mappers.js';
import { statementCache } from './sqlite-util.js';

export function createSqliteSessionsRepository(db: Database.Database): SessionsRepository {
  const sql = statementCache(db);
  return {
    async create(session) {
      // The account: the one asked for, else the user's own while they are a member of it, else the first they joined.
      const stored = sql(
        `INSERT INTO user_sessions (id_hash, user_id, created_at, last_seen_at, expires_at, handle, device, address, account_id)
         SELECT ?, ?, ?, ?, ?, ?, ?, ?, m.account_id FROM memberships m JOIN users u ON u.id = m.user_id
          WHERE m.user_id = ? AND (? IS NULL OR m.account_id = ?)
          ORDER BY m.account_id = u.account_id DESC, m.created_at, m.account_id LIMIT 1
         RETURNING account_id`,
      ).get(
        session.idHash,
        session.userId,
        session.createdAt,
        session.createdAt,
        session.expiresAt,
        session.handle,
        session.device,
        session.address,
        session.userId,
        session.accountId ?? null,
        session.accountId ?? null,
      ) as { account_id: bigint } | undefined;
      return stored === undefined ? undefined : Number(stored.account_id);
    },
    async find(idHash) {
      const row = sql(
        `SELECT s.id_hash, s.created_at AS session_created_at, s.last_seen_at, s.expires_at, COALESCE(s.authenticated_at, s.created_at) AS authenticated_at,
                u.id, s.account_id, u.email, u.created_at, u.disabled_at, u.email_verified_at, a.name AS account_name, m.role
           FROM user_sessions s JOIN users u ON u.id = s.user_id
           JOIN memberships m ON m.user_id = s.user_id AND m.account_id = s.account_id JOIN accounts a ON a.id = s.account_id
          WHERE s.id_hash = ?`,
      ).get(idHash) as SessionRow | undefined;
      return row && toSessionRecord(row);
    },
    async switchAccount(idHash, userId, accountId) {
      return (
        sql('UPDATE user_sessions SET account_id = ? WHERE id_hash = ? AND user_id = ? AND EXISTS (SELECT 1 FROM memberships WHERE user_id = ? AND account_id = ?)').run(
          accountId,
          idHash,
          userId,
          userId,
          accountId,
        ).changes > 0
      );
    },
    async markAuthenticated(idHash, at) {
      sql('UPDATE user_sessions SET authenticated_at = ? WHERE id_hash = ? AND COALESCE(authenticated_at, created_at) < ?').run(at, idHash, at);
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
