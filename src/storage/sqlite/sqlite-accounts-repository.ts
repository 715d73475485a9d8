import type Database from 'better-sqlite3';
import { statementCache } from './sqlite-util.js';
import type { AccountDeletion, AccountDeletionSummary, AccountsRepository } from '../../accounts/accounts-repository.js';
import { toAccount, type AccountRow } from '../account-rows.js';
import { insertAuditEntries } from './sqlite-audit-repository.js';

const COLUMNS = 'id, name, created_at, deleted_at';

export function createSqliteAccountsRepository(db: Database.Database): AccountsRepository {
  const sql = statementCache(db);

  // Runs inside BEGIN IMMEDIATE: no key, membership or session is added to the account while it is deleted.
  const deleteAccount = db.transaction(({ accountId, at, byOwner, audit, endpointReason }: AccountDeletion): AccountDeletionSummary | 'not_found' | 'not_owner' => {
    if (byOwner !== undefined && sql("SELECT 1 FROM memberships WHERE account_id = ? AND user_id = ? AND role = 'owner'").get(accountId, byOwner) === undefined) {
      return sql('SELECT 1 FROM accounts WHERE id = ? AND deleted_at IS NULL').get(accountId) === undefined ? 'not_found' : 'not_owner';
    }
    if (sql('UPDATE accounts SET deleted_at = ? WHERE id = ? AND deleted_at IS NULL').run(at, accountId).changes === 0) return 'not_found';
    const keysRevoked = sql('UPDATE api_keys SET revoked_at = ? WHERE account_id = ? AND revoked_at IS NULL').run(at, accountId).changes;
    const invitationsRevoked = sql('UPDATE invitations SET revoked_at = ? WHERE account_id = ? AND accepted_at IS NULL AND revoked_at IS NULL').run(at, accountId).changes;
    const sessionsEnded = sql('DELETE FROM user_sessions WHERE account_id = ?').run(accountId).changes;
    const membersRemoved = sql('DELETE FROM memberships WHERE account_id = ?').run(accountId).changes;
    const endpointsDisabled = sql("UPDATE webhook_endpoints SET status = 'disabled', disabled_reason = ? WHERE account_id = ? AND status = 'enabled'").run(endpointReason, accountId).changes;
    insertAuditEntries(sql, [audit]);
    return { keysRevoked, sessionsEnded, membersRemoved, invitationsRevoked, endpointsDisabled };
  });

  return {
    async create(account) {
      const row = sql(`INSERT INTO accounts (name, created_at) VALUES (?, ?) RETURNING ${COLUMNS}`).get(account.name, account.createdAt) as AccountRow;
      return toAccount(row);
    },
    async list() {
      const rows = sql(`SELECT ${COLUMNS} FROM accounts ORDER BY id`).all() as AccountRow[];
      return rows.map(toAccount);
    },
    async findById(id) {
      const row = sql(`SELECT ${COLUMNS} FROM accounts WHERE id = ?`).get(id) as AccountRow | undefined;
      return row && toAccount(row);
    },
    async delete(deletion) {
      return deleteAccount.immediate(deletion);
    },
  };
}
