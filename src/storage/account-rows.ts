import type { Account } from '../accounts/accounts-repository.js';

/** An account's row as both adapters select it (timestamps ISO 8601 text). */
export interface AccountRow {
  id: bigint;
  name: string;
  created_at: string;
  deleted_at: string | null;
}

export const toAccount = (row: AccountRow): Account => ({
  id: Number(row.id),
  name: row.name,
  createdAt: row.created_at,
  ...(row.deleted_at === null ? {} : { deletedAt: row.deleted_at }),
});
