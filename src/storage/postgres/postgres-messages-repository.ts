import { NotFoundError } from '../../errors/errors.js';
import type { MessagesRepository } from '../../messages/messages-repository.js';
import { FOREIGN_KEY_VIOLATION, sqlState } from './postgres-errors.js';
import { messageEvent } from '../../events/event-records.js';
import type { MessageEventType } from '../../events/event-types.js';
import { insertEvents } from './postgres-events.js';
import { isoTimestamp, type Sql, type Transaction } from './postgres-sql.js';
import { toClaimedMessages, toMessage, type MessageRow } from '../row-mappers.js';


const COLUMNS = `id, account_id, message, status, ${isoTimestamp('created_at')}, attempts, ${isoTimestamp('sent_at')}`;
const PREFIXED = `m.id, m.account_id, m.message, m.status, ${isoAs('m.created_at', 'created_at')}, m.attempts, ${isoAs('m.sent_at', 'sent_at')}`;

/** Like isoTimestamp, for a qualified column whose alias drops the qualifier. */
function isoAs(column: string, alias: string): string {
  return `${isoTimestamp(column).replace(/ AS .*$/, '')} AS ${alias}`;
}


export function createPostgresMessagesRepository(sql: Sql, transaction: Transaction): MessagesRepository {
  /** Ends a claimed message's delivery (sent or failed for good) and writes its event, in one transaction. */
  const settle = (update: string, values: readonly unknown[], type: MessageEventType, at: string): Promise<boolean> =>
    transaction(async (tx) => {
      const [row] = await tx<MessageRow>(`${update} RETURNING ${COLUMNS}`, values);
      if (row === undefined) return false;
      await insertEvents(tx, [messageEvent(type, toMessage(row), at)]);
      return true;
    });

  return {
    async create(message, now) {
      const binding = message.idempotency;
      try {
        if (binding === undefined) {
          const [row] = await sql<MessageRow>(
            `INSERT INTO messages (id, account_id, message, status, created_at, next_attempt_at) VALUES ($1, $2, $3, 'queued', $4, $4)
             RETURNING ${COLUMNS}`,
            [message.id, message.accountId, message.message, message.createdAt],
          );
          if (row === undefined) throw new Error('INSERT … RETURNING returned no row');
          return { created: true, message: toMessage(row) };
        }
        // One statement, so one transaction: the binding (new, or taking over
        // an expired one) and the message commit together. A concurrent
        // duplicate waits on the primary key of the binding, then finds it
        // unexpired and inserts nothing.
        const [row] = await sql<MessageRow>(
          `WITH binding AS (
             INSERT INTO message_idempotency_keys (account_id, key, fingerprint, message_id, expires_at) VALUES ($2, $5, $6, $1, $7)
             ON CONFLICT (account_id, key) DO UPDATE
               SET fingerprint = EXCLUDED.fingerprint, message_id = EXCLUDED.message_id, expires_at = EXCLUDED.expires_at
               WHERE message_idempotency_keys.expires_at <= $8
             RETURNING message_id
           )
           INSERT INTO messages (id, account_id, message, status, created_at, next_attempt_at)
           SELECT $1, $2, $3, 'queued', $4, $4 FROM binding
           RETURNING ${COLUMNS}`,
          [message.id, message.accountId, message.message, message.createdAt, binding.key, binding.fingerprint, binding.expiresAt, now],
        );
        if (row !== undefined) return { created: true, message: toMessage(row) };
        const [existing] = await sql<MessageRow & { fingerprint: string }>(
          `SELECT ${PREFIXED}, k.fingerprint FROM message_idempotency_keys k JOIN messages m ON m.id = k.message_id
           WHERE k.account_id = $1 AND k.key = $2`,
          [message.accountId, binding.key],
        );
        if (existing === undefined) throw new Error('an idempotency binding without its message');
        return { created: false, message: toMessage(existing), fingerprint: existing.fingerprint };
      } catch (error) {
        if (sqlState(error) === FOREIGN_KEY_VIOLATION) {
          throw new NotFoundError('account_not_found', `Account ${message.accountId} does not exist.`);
        }
        throw error;
      }
    },
    async findForAccount(accountId, id) {
      const [row] = await sql<MessageRow>(`SELECT ${COLUMNS} FROM messages WHERE id = $1 AND account_id = $2`, [id, accountId]);
      return row && toMessage(row);
    },
    async oldestDueAt() {
      const [row] = await sql<{ next_attempt_at: string }>(`SELECT ${isoTimestamp('next_attempt_at')} FROM messages WHERE status = 'queued' ORDER BY next_attempt_at LIMIT 1`);
      return row?.next_attempt_at;
    },
    async claimDue({ claimant, now, claimedUntil, limit }) {
      // SKIP LOCKED: concurrent claimers on other connections pass over rows
      // another claimer has locked instead of waiting for them, and never
      // take the same row; the UPDATE moves each out of "due" as it commits.
      // The claim carries the time each message was due at (for the delivery-lag metric).
      const rows = await sql<{ id: string; account_id: bigint; message: string; created_at: string; attempts: number; due_at: string }>(
        `WITH due AS (
           SELECT id, next_attempt_at AS due_at FROM messages WHERE status = 'queued' AND next_attempt_at <= $3
           ORDER BY next_attempt_at, id LIMIT $4 FOR UPDATE SKIP LOCKED
         )
         UPDATE messages m SET claimed_by = $1, next_attempt_at = $2, attempts = m.attempts + 1
         FROM due WHERE m.id = due.id
         RETURNING m.id, m.account_id, m.message, ${isoAs('m.created_at', 'created_at')}, m.attempts, ${isoAs('due.due_at', 'due_at')}`,
        [claimant, claimedUntil, now, limit],
      );
      return toClaimedMessages(rows);
    },
    async markSent({ id, claimant, at }) {
      return settle(
        `UPDATE messages SET status = 'sent', sent_at = $1, claimed_by = NULL, last_error = NULL
         WHERE id = $2 AND claimed_by = $3 AND status = 'queued'`,
        [at, id, claimant],
        'message.sent',
        at,
      );
    },
    async markAttemptFailed({ id, claimant, error, retryAt, at }) {
      if (retryAt === undefined) {
        return settle(
          `UPDATE messages SET status = 'failed', claimed_by = NULL, last_error = $1 WHERE id = $2 AND claimed_by = $3 AND status = 'queued'`,
          [error, id, claimant],
          'message.failed',
          at,
        );
      }
      const rows = await sql(
        `UPDATE messages SET next_attempt_at = $1, claimed_by = NULL, last_error = $2 WHERE id = $3 AND claimed_by = $4 AND status = 'queued' RETURNING id`,
        [retryAt, error, id, claimant],
      );
      return rows.length > 0;
    },
    async release({ id, claimant, at }) {
      const rows = await sql(
        `UPDATE messages SET next_attempt_at = $1, claimed_by = NULL, attempts = attempts - 1
         WHERE id = $2 AND claimed_by = $3 AND status = 'queued' RETURNING id`,
        [at, id, claimant],
      );
      return rows.length > 0;
    },
  };
}
