import type { StoredAuthenticator } from '../users/two-step/two-step-repository.js';

/** A user_authenticators row as both adapters read it (timestamps already ISO text). */
export interface AuthenticatorRow {
  user_id: bigint | number | string;
  sealed_secret: string;
  confirmed_at: string | null;
  last_step: bigint | number | string;
  created_at: string;
}

export function toStoredAuthenticator(row: AuthenticatorRow): StoredAuthenticator {
  return {
    userId: Number(row.user_id),
    sealedSecret: row.sealed_secret,
    ...(row.confirmed_at === null ? {} : { confirmedAt: row.confirmed_at }),
    lastStep: Number(row.last_step),
    createdAt: row.created_at,
  };
}
