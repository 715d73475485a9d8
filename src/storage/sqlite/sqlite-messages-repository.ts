import type Database from 'better-sqlite3';
import { NotFoundError } from '../../errors/errors.js';
import type { CreateMessageResult, MessagesRepository } from '../../messages/messages-repository.js';
import { messageEvent } from '../../events/event-records.js';
import type { MessageEventType } from '../../events/event-types.js';
import { insertEvents } from './sqlite-events.js';
import { sqliteConstraint, statementCache } from './sqlite-util.js';
import { toClaimedMessages, toMessage, type ClaimedMessageRow, type MessageRow } from '../row-mappers.js';


const COLUMNS = 'id, account_id, message, status, created_at, attempts, sent_at';
const PREFIXED = 'm.id, m.account_id, m.message, m.status, m.created_at, m.attempts, m.sent_at';


export function createSqliteMessagesRepository(db: Database.Database): MessagesRepository {
  const sql = statementCache(db);

  // One immediate transaction holds SQLite's writer lock: a message found
  // due here is moved out of "due" before any other claimer looks. Each
  // claim carries the time it was due at (for the delivery-lag metric).
  const claim = db.transaction((claimant: string, now: string, claimedUntil: string, limit: number) => {
    const due = sql(`SELECT id, next_attempt_at FROM messages WHERE status = 'queued' AND next_attempt_at <= ? ORDER BY next_attempt_at, id LIMIT ?`).all(now, limit) as {
      id: string;
      next_attempt_at: string;
    }[];
    if (due.length === 0) return [];
    const dueAt = new Map(due.map(({ id, next_attempt_at }) => [id, next_attempt_at]));
    const rows = sql(
      `UPDATE messages SET claimed_by = ?, next_attempt_at = ?, attempts = attempts + 1
       WHERE id IN (SELECT value FROM json_each(?))
       RETURNING id, account_id, message, created_at, attempts`,
    ).all(claimant, claimedUntil, JSON.stringify(due.map(({ id }) => id))) as Omit<ClaimedMessageRow, 'due_at'>[];
    return toClaimedMessages(rows.map((row) => ({ ...row, due_at: dueAt.get(row.id) ?? now })));
  });

  // One write transaction (BEGIN IMMEDIATE holds SQLite's single writer
  // lock): binding the key (or taking over an expired binding) and inserting
  // the message commit together or not at all. The primary key on
  // (account_id, key) decides between concurrent duplicates.
  const create = db.transaction((message: Parameters<MessagesRepository['create']>[0], now: string): CreateMessageResult => {
    const binding = message.idempotency;
    if (binding !== undefined) {
      const bound = sql(
        `INSERT INTO message_idempotency_keys (account_id, key, fingerprint, message_id, expires_at) VALUES (?, ?, ?, ?, ?)
         ON CONFLICT (account_id, key) DO UPDATE
           SET fingerprint = excluded.fingerprint, message_id = excluded.message_id, expires_at = excluded.expires_at
           WHERE message_idempotency_keys.expires_at <= ?
         RETURNING message_id`,
      ).get(message.accountId, binding.key, binding.fingerprint, message.id, binding.expiresAt, now);
      if (bound === undefined) {
        const existing = sql(
          `SELECT ${PREFIXED}, k.fingerprint FROM message_idempotency_keys k JOIN messages m ON m.id = k.message_id
           WHERE k.account_id = ? AND k.key = ?`,
        ).get(message.accountId, binding.key) as (MessageRow & { fingerprint: string }) | undefined;
        if (existing === undefined) throw new Error('an idempotency binding without its message');
        return { created: false, message: toMessage(existing), fingerprint: existing.fingerprint };
      }
    }
    const inserted = sql(
      `INSERT INTO messages (id, account_id, message, status, created_at, next_attempt_at) VALUES (?, ?, ?, 'queued', ?, ?) RETURNING ${COLUMNS}`,
    ).get(message.id, message.accountId, message.message, message.createdAt, message.createdAt) as MessageRow;
    return { created: true, message: toMessage(inserted) };
  });

  /** Ends a claimed message's delivery (sent or failed for good) and writes its event, in one transaction. */
  const settle = db.transaction((update: string, args: readonly unknown[], type: MessageEventType, at: string): boolean => {
    const row = sql(`${update} RETURNING ${COLUMNS}`).get(...args) as MessageRow | undefined;
    if (row === undefined) return false;
    insertEvents(sql, [messageEvent(type, toMessage(row), at)]);
    return true;
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
    async oldestDueAt() {
      const row = sql(`SELECT next_attempt_at FROM messages WHERE status = 'queued' ORDER BY next_attempt_at LIMIT 1`).get() as { next_attempt_at: string } | undefined;
      return row?.next_attempt_at;
    },
    async claimDue({ claimant, now, claimedUntil, limit }) {
      return claim.immediate(claimant, now, claimedUntil, limit);
    },
    async markSent({ id, claimant, at }) {
      return settle.immediate(
        `UPDATE messages SET status = 'sent', sent_at = ?, claimed_by = NULL, last_error = NULL
         WHERE id = ? AND claimed_by = ? AND status = 'queued'`,
        [at, id, claimant],
        'message.sent',
        at,
      );
    },
    async markAttemptFailed({ id, claimant, error, retryAt, at }) {
      if (retryAt === undefined) {
        return settle.immediate(
          `UPDATE messages SET status = 'failed', claimed_by = NULL, last_error = ? WHERE id = ? AND claimed_by = ? AND status = 'queued'`,
          [error, id, claimant],
          'message.failed',
          at,
        );
      }
      const result = sql(`UPDATE messages SET next_attempt_at = ?, claimed_by = NULL, last_error = ? WHERE id = ? AND claimed_by = ? AND status = 'queued'`)
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
