import type Database from 'better-sqlite3';
import type { AuditRepository, NewAuditEntry } from '../../audit/audit-repository.js';
import { NotFoundError } from '../../errors/errors.js';
import { auditColumns, toAuditEntry, type AuditRow } from '../audit-rows.js';
import { sqliteConstraint, statementCache, type Prepare } from './sqlite-util.js';

const COLUMNS = 'id, account_id, at, actor_kind, actor_id, address, action, target_kind, target_id, details';

/** Writes entries in the caller's transaction (a status change writes its entry in its own). */
export function insertAuditEntries(sql: Prepare, entries: readonly NewAuditEntry[]): void {
  if (entries.length === 0) return;
  const insert = sql(
    `INSERT INTO audit_events (account_id, at, actor_kind, actor_id, address, action, target_kind, target_id, details)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  for (const entry of entries) insert.run(...auditColumns(entry));
}

export function createSqliteAuditRepository(db: Database.Database): AuditRepository {
  const sql = statementCache(db);
  const append = db.transaction((entries: readonly NewAuditEntry[]) => insertAuditEntries(sql, entries));

  return {
    async append(entries) {
      if (entries.length === 0) return;
      try {
        append(entries);
      } catch (error) {
        if (sqliteConstraint(error) === 'SQLITE_CONSTRAINT_FOREIGNKEY') {
          throw new NotFoundError('account_not_found', `Account ${entries.map((e) => e.accountId).join(' or ')} does not exist.`);
        }
        throw error;
      }
    },
    async listPage({ accountId, beforeId, limit }) {
      const rows = (
        beforeId === undefined
          ? sql(`SELECT ${COLUMNS} FROM audit_events WHERE account_id = ? ORDER BY id DESC LIMIT ?`).all(accountId, limit)
          : sql(`SELECT ${COLUMNS} FROM audit_events WHERE account_id = ? AND id < ? ORDER BY id DESC LIMIT ?`).all(accountId, beforeId, limit)
      ) as AuditRow[];
      return rows.map(toAuditEntry);
    },
    async deleteOlderThan(before, limit) {
      const result = sql('DELETE FROM audit_events WHERE id IN (SELECT id FROM audit_events WHERE at < ? ORDER BY at LIMIT ?)').run(before, limit);
      return result.changes;
    },
  };
}
