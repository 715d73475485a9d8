import type Database from 'better-sqlite3';
import type { ApiKey, ApiKeysRepository } from '../../api-keys/api-keys-repository.js';
import { NotFoundError } from '../../errors/errors.js';
import { sqliteConstraint, statementCache } from './sqlite-util.js';

interface ApiKeyRow {
  id: bigint;
  account_id: bigint;
  name: string | null;
  start: string;
  created_at: string;
  revoked_at: string | null;
}

const COLUMNS = 'id, account_id, name, start, created_at, revoked_at';

function toApiKey(row: ApiKeyRow): ApiKey {
  const key: ApiKey = { id: Number(row.id), accountId: Number(row.account_id), start: row.start, createdAt: row.created_at };
  if (row.name !== null) key.name = row.name;
  if (row.revoked_at !== null) key.revokedAt = row.revoked_at;
  return key;
}

export function createSqliteApiKeysRepository(db: Database.Database): ApiKeysRepository {
  const sql = statementCache(db);
  return {
    async create(key) {
      try {
        const row = sql(`INSERT INTO api_keys (account_id, name, hash, start, created_at) VALUES (?, ?, ?, ?, ?) RETURNING ${COLUMNS}`)
          .get(key.accountId, key.name ?? null, key.hash, key.start, key.createdAt) as ApiKeyRow;
        return toApiKey(row);
      } catch (error) {
        if (sqliteConstraint(error) === 'SQLITE_CONSTRAINT_FOREIGNKEY') {
          throw new NotFoundError('account_not_found', `Account ${key.accountId} does not exist.`);
        }
        throw error;
      }
    },
    async listByAccount(accountId) {
      const rows = sql(`SELECT ${COLUMNS} FROM api_keys WHERE account_id = ? ORDER BY id`).all(accountId) as ApiKeyRow[];
      return rows.map(toApiKey);
    },
    async findActiveByHash(hash) {
      const row = sql('SELECT id, account_id FROM api_keys WHERE hash = ? AND revoked_at IS NULL').get(hash) as
        | { id: bigint; account_id: bigint }
        | undefined;
      return row && { keyId: Number(row.id), accountId: Number(row.account_id) };
    },
    async revoke(id, revokedAt) {
      const result = sql('UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL').run(revokedAt, id);
      if (result.changes > 0) return 'revoked';
      const exists = sql('SELECT 1 FROM api_keys WHERE id = ?').get(id) !== undefined;
      return exists ? 'already_revoked' : 'not_found';
    },
  };
}
