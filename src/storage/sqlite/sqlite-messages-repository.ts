import type Database from 'better-sqlite3';
import { NotFoundError } from '../../errors/errors.js';
import type { ClaimedMessage, Message, MessageStatus, MessagesRepository } from '../../messages/messages-repository.js';
import { sqliteConstraint, statementCache } from './sqlite-util.js';

interface MessageRow {
  id: string;
  account_id: bigint;
  message: string;
  status: MessageStatus;
  created_at: string;
  attempts: bigint;
  sent_at: string | null;
}

const COLUMNS = 'id, account_id, message, status, created_at, attempts, sent_at';

function toMessage(row: MessageRow): Message {
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

export function createSqliteMessagesRepository(db: Database.Database): MessagesRepository {
  const sql = statementCache(db);

  // One write transaction (BEGIN IMMEDIATE holds SQLite's single writer lock),
  // so releasing an expired key, inserting and reading the winner cannot
  // interleave with another connection's; the UNIQUE constraint is the
  // guard either way.
  const create = db.transaction((message: Parameters<MessagesRepository['create']>[0], now: string) => {
    const binding = message.idempotency;
    if (binding !== undefined) {
      sql('UPDATE messages SET idempotency_key = NULL WHERE account_id = ? AND idempotency_key = ? AND idempotency_expires_at <= ?')
        .run(message.accountId, binding.key, now);
    }
    const inserted = sql(
      `INSERT INTO messages (id, account_id, message, status, created_at, next_attempt_at, idempotency_key, request_fingerprint, idempotency_expires_at)
       VALUES (?, ?, ?, 'queued', ?, ?, ?, ?, ?)
       ON CONFLICT (account_id, idempotency_key) DO NOTHING
       RETURNING ${COLUMNS}`,
    ).get(
      message.id,
      message.accountId,
      message.message,
      message.createdAt,
      message.createdAt,
      binding?.key ?? null,
      binding?.fingerprint ?? null,
      binding?.expiresAt ?? null,
    ) as MessageRow | undefined;
    if (inserted !== undefined) return { created: true as const, message: toMessage(inserted) };
    const existing = sql(`SELECT ${COLUMNS}, request_fingerprint FROM messages WHERE account_id = ? AND idempotency_key = ?`)
      .get(message.accountId, binding?.key ?? null) as (MessageRow & { request_fingerprint: string }) | undefined;
    if (existing === undefined) throw new Error('idempotency conflict without a conflicting row');
    return { created: false as const, message: toMessage(existing), fingerprint: existing.request_fingerprint };
  });

  return {
    async create(message, now) {
      try {
        return create.immediate(message, now);
      } catch (error) {
        if (sqliteConstraint(error) === 'SQLITE_CONSTRAINT_FOREIGNKEY') {
          throw new NotFoundError('account_not_found', `Account ${message.accountId} does not exist.`);
        }
        throw error;
      }
    },
    async findForAccount(accountId, id) {
      const row = sql(`SELECT ${COLUMNS} FROM messages WHERE id = ? AND account_id = ?`).get(id, accountId) as MessageRow | undefined;
      return row && toMessage(row);
    },
    async claimDue({ claimant, now, claimedUntil, limit }) {
      // A single UPDATE is atomic under SQLite's writer lock: a message
      // matched here is moved out of "due" before any other claimer looks.
      const rows = sql(
        `UPDATE messages SET claimed_by = ?, next_attempt_at = ?, attempts = attempts + 1
         WHERE id IN (SELECT id FROM messages WHERE status = 'queued' AND next_attempt_at <= ? ORDER BY next_attempt_at, id LIMIT ?)
         RETURNING id, account_id, message, created_at, attempts`,
      ).all(claimant, claimedUntil, now, limit) as { id: string; account_id: bigint; message: string; created_at: string; attempts: bigint }[];
      return rows
        .map((row): ClaimedMessage => ({
          id: row.id,
          accountId: Number(row.account_id),
          message: row.message,
          createdAt: row.created_at,
          attempts: Number(row.attempts),
        }))
        .sort((a, b) => (a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : 0));
    },
    async markSent({ id, claimant, at }) {
      const result = sql(
        `UPDATE messages SET status = 'sent', sent_at = ?, claimed_by = NULL, last_error = NULL
         WHERE id = ? AND claimed_by = ? AND status = 'queued'`,
      ).run(at, id, claimant);
      return result.changes > 0;
    },
    async markAttemptFailed({ id, claimant, error, retryAt }) {
      const result =
        retryAt === undefined
          ? sql(`UPDATE messages SET status = 'failed', claimed_by = NULL, last_error = ? WHERE id = ? AND claimed_by = ? AND status = 'queued'`)
              .run(error, id, claimant)
          : sql(`UPDATE messages SET next_attempt_at = ?, claimed_by = NULL, last_error = ? WHERE id = ? AND claimed_by = ? AND status = 'queued'`)
              .run(retryAt, error, id, claimant);
      return result.changes > 0;
    },
    async release({ id, claimant, at }) {
      const result = sql(
        `UPDATE messages SET next_attempt_at = ?, claimed_by = NULL, attempts = attempts - 1
         WHERE id = ? AND claimed_by = ? AND status = 'queued'`,
      ).run(at, id, claimant);
      return result.changes > 0;
    },
  };
}
