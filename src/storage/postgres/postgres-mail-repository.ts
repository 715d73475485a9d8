import { NotFoundError } from '../../errors/errors.js';
import type { MailQuery, MailRepository, NewMail } from '../../mail/mail-repository.js';
import { channelOf, mailColumns, toClaimedMail, toMailRecord, toStoredMail, type ClaimedMailRow, type MailRow } from '../mail-rows.js';
import { FOREIGN_KEY_VIOLATION, sqlState } from './postgres-errors.js';
import { isoTimestamp, qualified, type Sql, type Transaction } from './postgres-sql.js';

const COLUMNS = [
  'id, kind, recipient, subject, account_id, status, attempts',
  isoTimestamp('next_attempt_at'),
  'last_error',
  isoTimestamp('created_at'),
  isoTimestamp('sent_at'),
  'channel',
].join(', ');

/** Transactions (their statement functions) that queued mail: the pool tells this process's mail engine after their commit. */
const queuedIn = new WeakSet<Sql>();

export function queuedMail(tx: Sql): boolean {
  return queuedIn.has(tx);
}

/**
 * Queues mail (pending, due at its creation) in the caller's transaction: a
 * change that sends mail (a password reset, an invitation) writes it in its
 * own, so that neither commits without the other; the pool tells this
 * process's mail engine after that commit (postgres-storage.ts). `tx` must be
 * a transaction's statement function, not the pool's.
 */
export async function insertMail(tx: Sql, mails: readonly NewMail[]): Promise<void> {
  for (const mail of mails) {
    await tx(
      `INSERT INTO mail (id, kind, recipient, subject, sealed_body, account_id, created_at, status, next_attempt_at) VALUES ($1, $2, $3, $4, $5, $6, $7, 'pending', $7)`,
      mailColumns(mail),
    );
  }
  if (mails.length > 0) queuedIn.add(tx);
}

function listSql({ recipient, status }: MailQuery): { text: string; values: unknown[] } {
  const values: unknown[] = [];
  const conditions: string[] = [];
  if (recipient !== undefined) conditions.push(`recipient = $${values.push(recipient)}`);
  if (status !== undefined) conditions.push(`status = $${values.push(status)}`);
  const where = conditions.length === 0 ? '' : `WHERE ${conditions.join(' AND ')}`;
  return { text: `SELECT ${COLUMNS} FROM mail ${where} ORDER BY created_at DESC, id DESC LIMIT $${values.length + 1}`, values };
}

export function createPostgresMailRepository(sql: Sql, transaction: Transaction): MailRepository {
  const changed = async (text: string, values: readonly unknown[]) => (await sql(`${text} RETURNING id`, values)).length > 0;
  return {
    async enqueue(mail) {
      try {
        await transaction((tx) => insertMail(tx, [mail]));
      } catch (error) {
        if (sqlState(error) === FOREIGN_KEY_VIOLATION) throw new NotFoundError('account_not_found', `Account ${String(mail.accountId)} does not exist.`);
        throw error;
      }
    },
    async list(query) {
      const { text, values } = listSql(query);
      return (await sql<MailRow>(text, [...values, query.limit])).map(toMailRecord);
    },
    async find(id) {
      const [row] = await sql<MailRow & { sealed_body: string }>(`SELECT ${COLUMNS}, sealed_body FROM mail WHERE id = $1`, [id]);
      return row && toStoredMail(row);
    },
    async oldestDueAt() {
      const [row] = await sql<{ next_attempt_at: string }>(`SELECT ${isoTimestamp('next_attempt_at')} FROM mail WHERE status = 'pending' ORDER BY next_attempt_at LIMIT 1`);
      return row?.next_attempt_at;
    },
    async claimDue({ claimant, now, claimedUntil, limit }) {
      // SKIP LOCKED: concurrent claimers pass over rows another has locked instead of waiting, and never take the same row.
      const rows = await sql<ClaimedMailRow>(
        `WITH due AS (
           SELECT id, next_attempt_at AS due_at FROM mail WHERE status = 'pending' AND next_attempt_at <= $3
           ORDER BY next_attempt_at, id LIMIT $4 FOR UPDATE SKIP LOCKED
         )
         UPDATE mail m SET claimed_by = $1, next_attempt_at = $2, attempts = m.attempts + 1
         FROM due WHERE m.id = due.id
         RETURNING m.id, m.kind, m.recipient, m.subject, m.sealed_body, ${qualified('m', 'created_at')}, m.attempts, ${qualified('due', 'due_at')}`,
        [claimant, claimedUntil, now, limit],
      );
      return toClaimedMail(rows);
    },
    async markSent({ id, claimant, at, channel }) {
      return changed(
        `UPDATE mail SET status = 'sent', sent_at = $1, channel = $2, claimed_by = NULL, last_error = NULL WHERE id = $3 AND claimed_by = $4 AND status = 'pending'`,
        [at, channelOf(channel), id, claimant],
      );
    },
    async markAttemptFailed({ id, claimant, error, retryAt }) {
      if (retryAt === undefined) {
        return changed(`UPDATE mail SET status = 'failed', claimed_by = NULL, last_error = $1 WHERE id = $2 AND claimed_by = $3 AND status = 'pending'`, [error, id, claimant]);
      }
      return changed(`UPDATE mail SET next_attempt_at = $1, claimed_by = NULL, last_error = $2 WHERE id = $3 AND claimed_by = $4 AND status = 'pending'`, [retryAt, error, id, claimant]);
    },
    async release({ id, claimant, at }) {
      return changed(`UPDATE mail SET next_attempt_at = $1, claimed_by = NULL, attempts = attempts - 1 WHERE id = $2 AND claimed_by = $3 AND status = 'pending'`, [at, id, claimant]);
    },
  };
}
