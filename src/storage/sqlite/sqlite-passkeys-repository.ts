import type Database from 'better-sqlite3';
import type { PasskeysRepository } from '../../users/passkeys-repository.js';
import { toPasskey, type PasskeyRow } from '../passkey-rows.js';
import { statementCache } from './sqlite-util.js';

const COLUMNS = 'id, user_id, credential_id, public_key, sign_count, transports, name, created_at, last_used_at';

export function createSqlitePasskeysRepository(db: Database.Database): PasskeysRepository {
  const sql = statementCache(db);
  return {
    async create(passkey) {
      const row = sql(
        `INSERT INTO user_passkeys (user_id, credential_id, public_key, sign_count, transports, name, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (credential_id) DO NOTHING RETURNING ${COLUMNS}`,
      ).get(passkey.userId, passkey.credentialId, passkey.publicKey, passkey.signCount, passkey.transports.join(' '), passkey.name, passkey.createdAt) as
        | PasskeyRow
        | undefined;
      return row === undefined ? 'credential_taken' : toPasskey(row);
    },
    async listByUser(userId) {
      return (sql(`SELECT ${COLUMNS} FROM user_passkeys WHERE user_id = ? ORDER BY id`).all(userId) as PasskeyRow[]).map(toPasskey);
    },
    async findByCredentialId(credentialId) {
      const row = sql(`SELECT ${COLUMNS} FROM user_passkeys WHERE credential_id = ?`).get(credentialId) as PasskeyRow | undefined;
      return row && toPasskey(row);
    },
    async recordUse(id, signCount, at) {
      sql('UPDATE user_passkeys SET sign_count = ?, last_used_at = ? WHERE id = ?').run(signCount, at, id);
    },
    async createChallenge(challenge) {
      sql('INSERT INTO passkey_challenges (hash, purpose, user_id, expires_at) VALUES (?, ?, ?, ?)').run(
        challenge.hash,
        challenge.purpose,
        challenge.userId ?? null,
        challenge.expiresAt,
      );
    },
    async consumeChallenge(hash, purpose, now) {
      const row = sql('DELETE FROM passkey_challenges WHERE hash = ? AND purpose = ? RETURNING user_id, expires_at').get(hash, purpose) as
        | { user_id: number | bigint | null; expires_at: string }
        | undefined;
      if (row === undefined || row.expires_at <= now) return undefined;
      return row.user_id === null ? {} : { userId: Number(row.user_id) };
    },
  };
}
