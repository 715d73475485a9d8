import type { Account, AccountsRepository } from '../../accounts/accounts-repository.js';
import { isoTimestamp, type Sql } from './postgres-sql.js';

interface AccountRow {
  id: bigint;
  name: string;
  created_at: string;
}

const COLUMNS = `id, name, ${isoTimestamp('created_at')}`;

const toAccount = (row: AccountRow): Account => ({ id: Number(row.id), name: row.name, createdAt: row.created_at });

export function createPostgresAccountsRepository(sql: Sql): AccountsRepository {
  return {
    async create(account) {
      const [row] = await sql<AccountRow>(`INSERT INTO accounts (name, created_at) VALUES ($1, $2) RETURNING ${COLUMNS}`, [
        account.name,
        account.createdAt,
      ]);
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
  };
}
