import type Database from 'better-sqlite3';
import { statementCache } from './sqlite-util.js';
import type { Account, AccountsRepository } from '../../accounts/accounts-repository.js';

interface AccountRow {
  id: bigint;
  name: string;
  created_at: string;
}

const toAccount = (row: AccountRow): Account => ({ id: Number(row.id), name: row.name, createdAt: row.created_at });

export function createSqliteAccountsRepository(db: Database.Database): AccountsRepository {
  const sql = statementCache(db);
  return {
    async create(account) {
      const row = sql('INSERT INTO accounts (name, created_at) VALUES (?, ?) RETURNING id, name, created_at')
        .get(account.name, account.createdAt) as AccountRow;
      return toAccount(row);
    },
    async list() {
      const rows = sql('SELECT id, name, created_at FROM accounts ORDER BY id').all() as AccountRow[];
      return rows.map(toAccount);
    },
    async findById(id) {
      const row = sql('SELECT id, name, created_at FROM accounts WHERE id = ?').get(id) as AccountRow | undefined;
      return row && toAccount(row);
    },
  };
}
