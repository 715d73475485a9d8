import { formatScopes, readStoredScopes } from '../../api-keys/api-key-scopes.js';
import type { ApiKeysRepository, NewApiKey } from '../../api-keys/api-keys-repository.js';
import { NotFoundError } from '../../errors/errors.js';
import { FOREIGN_KEY_VIOLATION, sqlState } from './postgres-errors.js';
import { isoTimestamp, type Sql } from './postgres-sql.js';
import { toApiKey, type ApiKeyRow } from '../row-mappers.js';


const COLUMNS =
  `id, account_id, name, start, ${isoTimestamp('created_at')}, ${isoTimestamp('revoked_at')}, ` +
  `${isoTimestamp('expires_at')}, scopes, ${isoTimestamp('last_used_at')}`;



export function createPostgresApiKeysRepository(sql: Sql): ApiKeysRepository {
  const accountMissing = (key: NewApiKey) => new NotFoundError('account_not_found', `Account ${key.accountId} does not exist.`);
  /**
   * The key's account, while it is not deleted, its row locked FOR SHARE
   * until the commit: a deletion of the account at the same time waits for
   * the new key (and revokes it) or is waited for (and the key is refused).
   */
  const LIVE_ACCOUNT = 'live AS (SELECT id FROM accounts WHERE id = $1 AND deleted_at IS NULL FOR SHARE)';

  return {
    async create(key) {
      try {
        const [row] = await sql<ApiKeyRow>(
          `WITH ${LIVE_ACCOUNT}
           INSERT INTO api_keys (account_id, name, hash, start, created_at, expires_at, scopes)
           SELECT $1, $2, $3, $4, $5, $6, $7 FROM live RETURNING ${COLUMNS}`,
          [key.accountId, key.name ?? null, key.hash, key.start, key.createdAt, key.expiresAt ?? null, formatScopes(key.scopes)],
        );
        if (row === undefined) throw accountMissing(key);
        return toApiKey(row);
      } catch (error) {
        if (sqlState(error) === FOREIGN_KEY_VIOLATION) throw accountMissing(key);
        throw error;
      }
    },
    async listByAccount(accountId) {
      const rows = await sql<ApiKeyRow>(`SELECT ${COLUMNS} FROM api_keys WHERE account_id = $1 ORDER BY id`, [accountId]);
      return rows.map(toApiKey);
    },
    async findActiveByHash(hash) {
      const [row] = await sql<{ id: bigint; account_id: bigint; scopes: string; expires_at: string | null }>(
        `SELECT id, account_id, scopes, ${isoTimestamp('expires_at')} FROM api_keys WHERE hash = $1 AND revoked_at IS NULL`,
        [hash],
      );
      if (row === undefined) return undefined;
      const principal = { keyId: Number(row.id), accountId: Number(row.account_id), scopes: readStoredScopes(row.scopes) };
      return row.expires_at === null ? principal : { ...principal, expiresAt: row.expires_at };
    },
    async findOwnerByHash(hash) {
      const [row] = await sql<{ id: bigint; account_id: bigint }>('SELECT id, account_id FROM api_keys WHERE hash = $1', [hash]);
      return row === undefined ? undefined : { keyId: Number(row.id), accountId: Number(row.account_id) };
    },
    async revoke(id, revokedAt) {
      const updated = await sql('UPDATE api_keys SET revoked_at = $1 WHERE id = $2 AND revoked_at IS NULL RETURNING id', [revokedAt, id]);
      if (updated.length > 0) return 'revoked';
      const exists = (await sql('SELECT 1 FROM api_keys WHERE id = $1', [id])).length > 0;
      return exists ? 'already_revoked' : 'not_found';
    },
    async findById(id) {
      const [row] = await sql<ApiKeyRow>(`SELECT ${COLUMNS} FROM api_keys WHERE id = $1`, [id]);
      return row === undefined ? undefined : toApiKey(row);
    },
    async roll(seen, { key, oldExpiresAt }) {
      const expiresAt = seen.expiresAt !== undefined && seen.expiresAt < oldExpiresAt ? seen.expiresAt : oldExpiresAt;
      // One statement, so atomic: the old key's expiry moves only if the key
      // is still as seen (not revoked, same expiry), and the new key is
      // inserted only if it moved.
      try {
        const [created] = await sql<ApiKeyRow>(
          `WITH ${LIVE_ACCOUNT}, moved AS (
             UPDATE api_keys SET expires_at = $3
             WHERE id = $2 AND revoked_at IS NULL AND expires_at IS NOT DISTINCT FROM $4::timestamptz AND EXISTS (SELECT 1 FROM live)
             RETURNING id
           )
           INSERT INTO api_keys (account_id, name, hash, start, created_at, expires_at, scopes)
           SELECT $1, $5, $6, $7, $8, $9, $10 FROM moved
           RETURNING ${COLUMNS}`,
          [key.accountId, seen.id, expiresAt, seen.expiresAt ?? null, key.name ?? null, key.hash, key.start, key.createdAt, key.expiresAt ?? null, formatScopes(key.scopes)],
        );
        return created === undefined ? { outcome: 'changed' } : { outcome: 'rolled', old: { ...seen, expiresAt }, created: toApiKey(created) };
      } catch (error) {
        if (sqlState(error) === FOREIGN_KEY_VIOLATION) throw accountMissing(key);
        throw error;
      }
    },
    async recordLastUsed(uses) {
      if (uses.length === 0) return;
      await sql(
        `UPDATE api_keys AS k SET last_used_at = u.at
         FROM unnest($1::bigint[], $2::timestamptz[]) AS u(id, at)
         WHERE k.id = u.id AND (k.last_used_at IS NULL OR k.last_used_at < u.at)`,
        [uses.map((use) => String(use.id)), uses.map((use) => use.at)],
      );
    },
  };
}
