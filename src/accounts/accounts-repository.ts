import type { NewAuditEntry } from '../audit/audit-repository.js';

export interface Account {
  id: number;
  name: string;
  /** ISO 8601 UTC. */
  createdAt: string;
  /** ISO 8601 UTC, when the account was deleted (docs/portal.md, "Deleting an account"); absent while it is not. */
  deletedAt?: string;
}

export interface NewAccount {
  name: string;
  createdAt: string;
}

/** A deletion of an account, as the accounts service hands it to storage. */
export interface AccountDeletion {
  accountId: number;
  /** ISO 8601 UTC: the deletion's time, and the keys' and invitations' revocation time. */
  at: string;
  /** An owner deleting it (the portal): the deletion is made only while this user is an owner of the account, checked in its transaction. Absent: the operator. */
  byOwner?: number;
  /** Its entry in the account's audit trail, written in the same transaction. */
  audit: NewAuditEntry;
  /** Why the account's webhook endpoints were disabled, as they show it. */
  endpointReason: string;
}

/** What a deletion ended, counted in its transaction. */
export interface AccountDeletionSummary {
  keysRevoked: number;
  sessionsEnded: number;
  membersRemoved: number;
  invitationsRevoked: number;
  endpointsDisabled: number;
}

/** Storage of accounts. Adapters live in src/storage/<database>/. */
export interface AccountsRepository {
  create(account: NewAccount): Promise<Account>;
  /** All accounts, deleted ones included, by id. */
  list(): Promise<Account[]>;
  /** The account, deleted or not. */
  findById(id: number): Promise<Account | undefined>;
  /**
   * Deletes the account, in one transaction: marks it deleted, revokes its
   * API keys that are not revoked yet, revokes its pending invitations,
   * deletes its memberships and every session working in it, disables its
   * webhook endpoints (no delivery is claimed for a disabled endpoint), and
   * writes the audit entry. Its orders, events, logs and audit trail are
   * kept. `not_found` (nothing changed): no such account, or deleted
   * already; `not_owner` (nothing changed): `byOwner` is not an owner of it
   * (any more). On PostgreSQL the account's row is locked first: a key
   * created at the same time either exists before (and is revoked) or is
   * refused after (ApiKeysRepository.create).
   */
  delete(deletion: AccountDeletion): Promise<AccountDeletionSummary | 'not_found' | 'not_owner'>;
}
