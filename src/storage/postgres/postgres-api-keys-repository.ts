import type { ApiKey, ApiKeysRepository } from '../../api-keys/api-keys-repository.js';
import { NotFoundError } from '../../errors/errors.js';
import { FOREIGN_KEY_VIOLATION, sqlState } from './postgres-errors.js';
import { isoTimestamp, type Sql } from './postgres-sql.js';

interface ApiKeyRow {
  id: bigint;
  account_id: bigint;
  name: string | null;
  start: string;
  created_at: string;
  revoked_at: string | null;
}

const COLUMNS = `id, account_id, name, start, ${isoTimestamp('created_at')}, ${isoTimestamp('revoked_at')}`;

function toApiKey(row: ApiKeyRow): ApiKey {
  const key: ApiKey = { id: Number(row.id), accountId: Number(row.account_id), start: row.start, createdAt: row.created_at };
  if (row.name !== null) key.name = row.name;
  if (row.revoked_at !== null) key.revokedAt = row.revoked_at;
  return key;
}

export function createPostgresApiKeysRepository(sql: Sql): ApiKeysRepository {
  return {
    async create(key) {
      try {
        const [row] = await sql<ApiKeyRow>(
          `INSERT INTO api_keys (account_id, name, hash, start, created_at) VALUES ($1, $2, $3, $4, $5) RETURNING ${COLUMNS}`,
          [key.accountId, key.name ?? null, key.hash, key.start, key.createdAt],
        );
        if (row === undefined) throw new Error('INSERT … RETURNING returned no row');
        return toApiKey(row);
      } catch (error) {
        if (sqlState(error) === FOREIGN_KEY_VIOLATION) {
          throw new NotFoundError('account_not_found', `Account ${key.accountId} does not exist.`);
        }
        throw error;
      }
    },
    async listByAccount(accountId) {
      const rows = await sql<ApiKeyRow>(`SELECT ${COLUMNS} FROM api_keys WHERE account_id = $1 ORDER BY id`, [accountId]);
      return rows.map(toApiKey);
    },
    async findActiveByHash(hash) {
      const [row] = await sql<{ id: bigint; account_id: bigint }>(
        'SELECT id, account_id FROM api_keys WHERE hash = $1 AND revoked_at IS NULL',
        [hash],
      );
      return row && { keyId: Number(row.id), accountId: Number(row.account_id) };
    },
    async revoke(id, revokedAt) {
      const updated = await sql('UPDATE api_keys SET revoked_at = $1 WHERE id = $2 AND revoked_at IS NULL RETURNING id', [revokedAt, id]);
      if (updated.length > 0) return 'revoked';
      const exists = (await sql('SELECT 1 FROM api_keys WHERE id = $1', [id])).length > 0;
      return exists ? 'already_revoked' : 'not_found';
    },
  };
}
