import type Database from 'better-sqlite3';
import { formatScopes, readStoredScopes } from '../../api-keys/api-key-scopes.js';
import type { ApiKey, ApiKeysRepository, KeyReplacement, NewApiKey, RollOutcome } from '../../api-keys/api-keys-repository.js';
import { NotFoundError } from '../../errors/errors.js';
import { sqliteConstraint, statementCache } from './sqlite-util.js';
import { toApiKey, type ApiKeyRow } from '../row-mappers.js';


const COLUMNS = 'id, account_id, name, start, created_at, revoked_at, expires_at, scopes, last_used_at';


export function createSqliteApiKeysRepository(db: Database.Database): ApiKeysRepository {
  const sql = statementCache(db);

  function insert(key: NewApiKey): ApiKey {
    try {
      // Only into an account that is not deleted (one statement: a deletion is before it or after it).
      const row = sql(
        `INSERT INTO api_keys (account_id, name, hash, start, created_at, expires_at, scopes)
         SELECT ?, ?, ?, ?, ?, ?, ? WHERE NOT EXISTS (SELECT 1 FROM accounts WHERE id = ? AND deleted_at IS NOT NULL) RETURNING ${COLUMNS}`,
      ).get(key.accountId, key.name ?? null, key.hash, key.start, key.createdAt, key.expiresAt ?? null, formatScopes(key.scopes), key.accountId) as ApiKeyRow | undefined;
      if (row === undefined) throw new NotFoundError('account_not_found', `Account ${key.accountId} does not exist.`);
      return toApiKey(row);
    } catch (error) {
      if (sqliteConstraint(error) === 'SQLITE_CONSTRAINT_FOREIGNKEY') {
        throw new NotFoundError('account_not_found', `Account ${key.accountId} does not exist.`);
      }
      throw error;
    }
  }

  // Runs inside BEGIN IMMEDIATE: the condition and both writes under one write lock.
  const roll = db.transaction((seen: ApiKey, { key, oldExpiresAt }: KeyReplacement): RollOutcome => {
    const expiresAt = seen.expiresAt !== undefined && seen.expiresAt < oldExpiresAt ? seen.expiresAt : oldExpiresAt;
    const moved = sql('UPDATE api_keys SET expires_at = ? WHERE id = ? AND revoked_at IS NULL AND expires_at IS ?').run(expiresAt, seen.id, seen.expiresAt ?? null);
    if (moved.changes === 0) return { outcome: 'changed' };
    return { outcome: 'rolled', old: { ...seen, expiresAt }, created: insert(key) };
  });

  const recordLastUsed = db.transaction((uses: readonly { id: number; at: string }[]) => {
    const update = sql('UPDATE api_keys SET last_used_at = ? WHERE id = ? AND (last_used_at IS NULL OR last_used_at < ?)');
    for (const use of uses) update.run(use.at, use.id, use.at);
  });

  return {
    async create(key) {
      return insert(key);
    },
    async listByAccount(accountId) {
      const rows = sql(`SELECT ${COLUMNS} FROM api_keys WHERE account_id = ? ORDER BY id`).all(accountId) as ApiKeyRow[];
      return rows.map(toApiKey);
    },
    async findActiveByHash(hash) {
      const row = sql('SELECT id, account_id, scopes, expires_at FROM api_keys WHERE hash = ? AND revoked_at IS NULL').get(hash) as
        | { id: bigint; account_id: bigint; scopes: string; expires_at: string | null }
        | undefined;
      if (row === undefined) return undefined;
      const principal = { keyId: Number(row.id), accountId: Number(row.account_id), scopes: readStoredScopes(row.scopes) };
      return row.expires_at === null ? principal : { ...principal, expiresAt: row.expires_at };
    },
    async findOwnerByHash(hash) {
      const row = sql('SELECT id, account_id FROM api_keys WHERE hash = ?').get(hash) as { id: bigint; account_id: bigint } | undefined;
      return row === undefined ? undefined : { keyId: Number(row.id), accountId: Number(row.account_id) };
    },
    async revoke(id, revokedAt) {
      const result = sql('UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL').run(revokedAt, id);
      if (result.changes > 0) return 'revoked';
      const exists = sql('SELECT 1 FROM api_keys WHERE id = ?').get(id) !== undefined;
      return exists ? 'already_revoked' : 'not_found';
    },
    async findById(id) {
      const row = sql(`SELECT ${COLUMNS} FROM api_keys WHERE id = ?`).get(id) as ApiKeyRow | undefined;
      return row === undefined ? undefined : toApiKey(row);
    },
    async roll(seen, replacement) {
      return roll.immediate(seen, replacement);
    },
    async recordLastUsed(uses) {
      if (uses.length > 0) recordLastUsed(uses);
    },
  };
}
