import { readStoredScopes } from '../api-keys/api-key-scopes.js';
import type { ApiKey } from '../api-keys/api-keys-repository.js';
import type { ClaimedMessage, Message, MessageStatus } from '../messages/messages-repository.js';

/*
 * Rows as every adapter selects them (timestamps already ISO 8601 text,
 * integers as bigint or number), mapped to records in one place so both
 * databases answer identically: absent optional fields are omitted, never null.
 */

export interface ApiKeyRow {
  id: bigint;
  account_id: bigint;
  name: string | null;
  start: string;
  created_at: string;
  revoked_at: string | null;
  expires_at: string | null;
  scopes: string;
  last_used_at: string | null;
}

export function toApiKey(row: ApiKeyRow): ApiKey {
  const key: ApiKey = {
    id: Number(row.id),
    accountId: Number(row.account_id),
    start: row.start,
    createdAt: row.created_at,
    scopes: readStoredScopes(row.scopes),
  };
  if (row.name !== null) key.name = row.name;
  if (row.revoked_at !== null) key.revokedAt = row.revoked_at;
  if (row.expires_at !== null) key.expiresAt = row.expires_at;
  if (row.last_used_at !== null) key.lastUsedAt = row.last_used_at;
  return key;
}

export interface MessageRow {
  id: string;
  account_id: bigint;
  message: string;
  status: MessageStatus;
  created_at: string;
  attempts: bigint | number;
  sent_at: string | null;
}

export function toMessage(row: MessageRow): Message {
  const message: Message = {
    id: row.id,
    accountId: Number(row.account_id),
    message: row.message,
    status: row.status,
    createdAt: row.created_at,
    attempts: Number(row.attempts),
  };
  if (row.sent_at !== null) message.sentAt = row.sent_at;
  return message;
}

export interface ClaimedMessageRow {
  id: string;
  account_id: bigint;
  message: string;
  created_at: string;
  attempts: bigint | number;
  /** When it was due, before the claim moved its due time to the lease's end. */
  due_at: string;
}

/** Claimed messages, oldest first: the order a dispatcher delivers them in. */
export function toClaimedMessages(rows: readonly ClaimedMessageRow[]): ClaimedMessage[] {
  return rows
    .map((row): ClaimedMessage => ({
      id: row.id,
      accountId: Number(row.account_id),
      message: row.message,
      createdAt: row.created_at,
      attempts: Number(row.attempts),
      dueAt: row.due_at,
    }))
    .sort((a, b) => (a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : 0));
}

