import type { AccountDeletionSummary, AccountsRepository } from '../../accounts/accounts-repository.js';
import { toAccount, type AccountRow } from '../account-rows.js';
import { insertAuditEntries } from './postgres-audit-repository.js';
import { isoTimestamp, type Sql, type Transaction } from './postgres-sql.js';

const COLUMNS = `id, name, ${isoTimestamp('created_at')}, ${isoTimestamp('deleted_at')}`;

/** How many rows a data-modifying statement touched (each `RETURNING 1`). */
async function count(tx: Sql, statement: string, values: readonly unknown[]): Promise<number> {
  return (await tx(`${statement} RETURNING 1`, values)).length;
}

export function createPostgresAccountsRepository(sql: Sql, transaction: Transaction): AccountsRepository {
  return {
    async create(account) {
      const [row] = await sql<AccountRow>(`INSERT INTO accounts (name, created_at) VALUES ($1, $2) RETURNING ${COLUMNS}`, [account.name, account.createdAt]);
      if (row === undefined) throw new Error('INSERT … RETURNING returned no row');
      return toAccount(row);
    },
    async list() {
      const rows = await sql<AccountRow>(`SELECT ${COLUMNS} FROM accounts ORDER BY id`);
      return rows.map(toAccount);
    },
    async findById(id) {
      const [row] = await sql<AccountRow>(`SELECT ${COLUMNS} FROM accounts WHERE id = $1`, [id]);
      return row && toAccount(row);
    },
    async delete({ accountId, at, byOwner, audit, endpointReason }) {
      return transaction(async (tx): Promise<AccountDeletionSummary | 'not_found' | 'not_owner'> => {
        // The account's row first: a key created at the same time (which locks it FOR SHARE) waits for this commit, then sees it
        // deleted. NO KEY UPDATE, not UPDATE: rows that merely refer to the account (a membership an acceptance adds, holding the
        // invitation's row this transaction revokes next) take KEY SHARE, which this does not block, so the two cannot deadlock.
        if ((await tx('SELECT 1 FROM accounts WHERE id = $1 AND deleted_at IS NULL FOR NO KEY UPDATE', [accountId])).length === 0) return 'not_found';
        // The owner's membership row, as a role change locks it: a demotion at the same time waits, or is seen.
        if (byOwner !== undefined && (await tx("SELECT 1 FROM memberships WHERE account_id = $1 AND user_id = $2 AND role = 'owner' FOR UPDATE", [accountId, byOwner])).length === 0) {
          return 'not_owner';
        }
        await tx('UPDATE accounts SET deleted_at = $2 WHERE id = $1', [accountId, at]);
        const keysRevoked = await count(tx, 'UPDATE api_keys SET revoked_at = $2 WHERE account_id = $1 AND revoked_at IS NULL', [accountId, at]);
        // Invitations before memberships: an acceptance committed meanwhile has added its membership by the time it is deleted.
        const invitationsRevoked = await count(tx, 'UPDATE invitations SET revoked_at = $2 WHERE account_id = $1 AND accepted_at IS NULL AND revoked_at IS NULL', [accountId, at]);
        const membersRemoved = await count(tx, 'DELETE FROM memberships WHERE account_id = $1', [accountId]);
        const sessionsEnded = await count(tx, 'DELETE FROM user_sessions WHERE account_id = $1', [accountId]);
        const endpointsDisabled = await count(tx, "UPDATE webhook_endpoints SET status = 'disabled', disabled_reason = $2 WHERE account_id = $1 AND status = 'enabled'", [accountId, endpointReason]);
        await insertAuditEntries(tx, [audit]);
        return { keysRevoked, sessionsEnded, membersRemoved, invitationsRevoked, endpointsDisabled };
      });
    },
  };
}
