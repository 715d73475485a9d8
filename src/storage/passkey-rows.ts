import type { Passkey } from '../users/passkeys-repository.js';

/** A user_passkeys row as both adapters read it (timestamps already ISO text). */
export interface PasskeyRow {
  id: number | string;
  user_id: number | string;
  credential_id: string;
  public_key: string;
  sign_count: number | string;
  transports: string;
  name: string;
  created_at: string;
  last_used_at: string | null;
}

export function toPasskey(row: PasskeyRow): Passkey {
  return {
    id: Number(row.id),
    userId: Number(row.user_id),
    credentialId: row.credential_id,
    publicKey: row.public_key,
    signCount: Number(row.sign_count),
    transports: row.transports === '' ? [] : row.transports.split(' '),
    name: row.name,
    createdAt: row.created_at,
    ...(row.last_used_at === null ? {} : { lastUsedAt: row.last_used_at }),
  };
}
