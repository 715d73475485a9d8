import type { PasskeysRepository } from '../../users/passkeys-repository.js';
import { toPasskey, type PasskeyRow } from '../passkey-rows.js';
import { isoTimestamp, type Sql } from './postgres-sql.js';

const COLUMNS = `id, user_id, credential_id, public_key, sign_count, transports, name, ${isoTimestamp('created_at')}, ${isoTimestamp('last_used_at')}`;

export function createPostgresPasskeysRepository(sql: Sql): PasskeysRepository {
  return {
    async create(passkey) {
      const [row] = await sql<PasskeyRow>(
        `INSERT INTO user_passkeys (user_id, credential_id, public_key, sign_count, transports, name, created_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (credential_id) DO NOTHING RETURNING ${COLUMNS}`,
        [passkey.userId, passkey.credentialId, passkey.publicKey, passkey.signCount, passkey.transports.join(' '), passkey.name, passkey.createdAt],
      );
      return row === undefined ? 'credential_taken' : toPasskey(row);
    },
    async listByUser(userId) {
      return (await sql<PasskeyRow>(`SELECT ${COLUMNS} FROM user_passkeys WHERE user_id = $1 ORDER BY id`, [userId])).map(toPasskey);
    },
    async findByCredentialId(credentialId) {
      const [row] = await sql<PasskeyRow>(`SELECT ${COLUMNS} FROM user_passkeys WHERE credential_id = $1`, [credentialId]);
      return row && toPasskey(row);
    },
    async recordUse(id, signCount, at) {
      await sql('UPDATE user_passkeys SET sign_count = $2, last_used_at = $3 WHERE id = $1', [id, signCount, at]);
    },
    async createChallenge(challenge) {
      await sql('INSERT INTO passkey_challenges (hash, purpose, user_id, expires_at) VALUES ($1, $2, $3, $4)', [
        challenge.hash,
        challenge.purpose,
        challenge.userId ?? null,
        challenge.expiresAt,
      ]);
    },
    async consumeChallenge(hash, purpose, now) {
      const [row] = await sql<{ user_id: string | number | null; live: boolean }>(
        'DELETE FROM passkey_challenges WHERE hash = $1 AND purpose = $2 RETURNING user_id, expires_at > $3 AS live',
        [hash, purpose, now],
      );
      if (row === undefined || !row.live) return undefined;
      return row.user_id === null ? {} : { userId: Number(row.user_id) };
    },
  };
}
