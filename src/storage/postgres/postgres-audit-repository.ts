import type { AuditRepository, NewAuditEntry } from '../../audit/audit-repository.js';
import { NotFoundError } from '../../errors/errors.js';
import { auditColumns, toAuditEntry, type AuditRow } from '../audit-rows.js';
import { FOREIGN_KEY_VIOLATION, sqlState } from './postgres-errors.js';
import { isoTimestamp, type Sql } from './postgres-sql.js';

const COLUMNS = `id, account_id, ${isoTimestamp('at')}, actor_kind, actor_id, address, action, target_kind, target_id, details`;

/** The column types, in auditColumns() order, for the arrays unnest() reads. */
const ARRAY_TYPES = ['bigint', 'timestamptz', 'text', 'bigint', 'text', 'text', 'text', 'text', 'text'] as const;

const INSERT = `INSERT INTO audit_events (account_id, at, actor_kind, actor_id, address, action, target_kind, target_id, details)
  SELECT * FROM unnest(${ARRAY_TYPES.map((type, i) => `$${i + 1}::${type}[]`).join(', ')})`;

/**
 * Writes entries in one statement (one round trip whatever their number),
 * in the caller's transaction when `sql` is one: a status change writes its
 * entry in its own.
 */
export async function insertAuditEntries(sql: Sql, entries: readonly NewAuditEntry[]): Promise<void> {
  if (entries.length === 0) return;
  const columns = ARRAY_TYPES.map(() => [] as unknown[]);
  for (const entry of entries) auditColumns(entry).forEach((value, i) => columns[i]?.push(value));
  await sql(INSERT, columns);
}

export function createPostgresAuditRepository(sql: Sql): AuditRepository {
  return {
    async append(entries) {
      try {
        await insertAuditEntries(sql, entries);
      } catch (error) {
        if (sqlState(error) === FOREIGN_KEY_VIOLATION) {
          throw new NotFoundError('account_not_found', `Account ${entries.map((e) => e.accountId).join(' or ')} does not exist.`);
        }
        throw error;
      }
    },
    async listPage({ accountId, beforeId, limit }) {
      const rows =
        beforeId === undefined
          ? await sql<AuditRow>(`SELECT ${COLUMNS} FROM audit_events WHERE account_id = $1 ORDER BY id DESC LIMIT $2`, [accountId, limit])
          : await sql<AuditRow>(`SELECT ${COLUMNS} FROM audit_events WHERE account_id = $1 AND id < $2 ORDER BY id DESC LIMIT $3`, [
              accountId,
              beforeId.toString(),
              limit,
            ]);
      return rows.map(toAuditEntry);
    },
    async deleteOlderThan(before, limit) {
      const rows = await sql<{ deleted: string }>(
        `WITH gone AS (
           DELETE FROM audit_events WHERE id IN (SELECT id FROM audit_events WHERE at < $1 ORDER BY at LIMIT $2) RETURNING 1
         )
         SELECT count(*)::text AS deleted FROM gone`,
        [before, limit],
      );
      return Number(rows[0]?.deleted ?? 0);
    },
  };
}
