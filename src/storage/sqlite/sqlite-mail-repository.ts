import type BetterSqlite3 from 'better-sqlite3';
import type { DeliveriesQueued } from '../../delivery/deliveries-queued.js';
import { NotFoundError } from '../../errors/errors.js';
import type { MailQuery, MailRepository, NewMail } from '../../mail/mail-repository.js';
import { channelOf, mailColumns, toClaimedMail, toMailRecord, toStoredMail, type ClaimedMailRow, type MailRow } from '../mail-rows.js';
import { sqliteConstraint, statementCache, type Prepare } from './sqlite-util.js';

const COLUMNS = 'id, kind, recipient, subject, account_id, status, attempts, next_attempt_at, last_error, created_at, sent_at, channel';

/** Each open database's announcement of queued mail (sqlite-storage.ts registers it). */
const announcers = new WeakMap<BetterSqlite3.Database, DeliveriesQueued>();

export function announceMailOf(db: BetterSqlite3.Database, mailQueued: DeliveriesQueued): void {
  announcers.set(db, mailQueued);
}

/**
 * Queues mail (pending, due at its creation) in the caller's transaction: a
 * change that sends mail (a password reset, an invitation) writes it in its
 * own, so that neither commits without the other. This process's mail
 * engine is told after this turn: a better-sqlite3 transaction is
 * synchronous, so it has committed (or rolled back: a wake that finds
 * nothing) by then.
 */
export function insertMail(sql: Prepare, mails: readonly NewMail[]): void {
  if (mails.length === 0) return;
  const insert = sql(
    `INSERT INTO mail (id, kind, recipient, subject, sealed_body, account_id, created_at, status, next_attempt_at) VALUES (?, ?, ?, ?, ?, ?, ?, 'pending', ?)`,
  );
  for (const mail of mails) insert.run(...mailColumns(mail), mail.createdAt);
  announcers.get(insert.database)?.announce();
}

function listSql({ recipient, status }: MailQuery): string {
  const conditions = [...(recipient === undefined ? [] : ['recipient = ?']), ...(status === undefined ? [] : ['status = ?'])];
  return `SELECT ${COLUMNS} FROM mail ${conditions.length === 0 ? '' : `WHERE ${conditions.join(' AND ')}`} ORDER BY created_at DESC, id DESC LIMIT ?`;
}

export function createSqliteMailRepository(db: BetterSqlite3.Database): MailRepository {
  const sql = statementCache(db);
  const enqueue = db.transaction((mail: NewMail) => insertMail(sql, [mail]));

  // One immediate transaction holds SQLite's writer lock: mail found due here
  // is moved out of "due" before any other claimer looks.
  const claim = db.transaction((claimant: string, now: string, claimedUntil: string, limit: number) => {
    const due = sql(`SELECT id, next_attempt_at FROM mail WHERE status = 'pending' AND next_attempt_at <= ? ORDER BY next_attempt_at, id LIMIT ?`).all(now, limit) as {
      id: string;
      next_attempt_at: string;
    }[];
    if (due.length === 0) return [];
    const dueAt = new Map(due.map(({ id, next_attempt_at }) => [id, next_attempt_at]));
    const rows = sql(
      `UPDATE mail SET claimed_by = ?, next_attempt_at = ?, attempts = attempts + 1
       WHERE id IN (SELECT value FROM json_each(?))
       RETURNING id, kind, recipient, subject, sealed_body, created_at, attempts`,
    ).all(claimant, claimedUntil, JSON.stringify(due.map(({ id }) => id))) as Omit<ClaimedMailRow, 'due_at'>[];
    return toClaimedMail(rows.map((row) => ({ ...row, due_at: dueAt.get(row.id) ?? now })));
  });

  const changed = (text: string, ...values: unknown[]) => sql(text).run(...values).changes > 0;

  return {
    async enqueue(mail) {
      try {
        enqueue.immediate(mail);
      } catch (error) {
        if (sqliteConstraint(error) === 'SQLITE_CONSTRAINT_FOREIGNKEY') throw new NotFoundError('account_not_found', `Account ${String(mail.accountId)} does not exist.`);
        throw error;
      }
    },
    async list(query) {
      const values = [...(query.recipient === undefined ? [] : [query.recipient]), ...(query.status === undefined ? [] : [query.status]), query.limit];
      return (sql(listSql(query)).all(...values) as MailRow[]).map(toMailRecord);
    },
    async find(id) {
      const row = sql(`SELECT ${COLUMNS}, sealed_body FROM mail WHERE id = ?`).get(id) as (MailRow & { sealed_body: string }) | undefined;
      return row && toStoredMail(row);
    },
    async oldestDueAt() {
      const row = sql(`SELECT next_attempt_at FROM mail WHERE status = 'pending' ORDER BY next_attempt_at LIMIT 1`).get() as { next_attempt_at: string } | undefined;
      return row?.next_attempt_at;
    },
    async claimDue({ claimant, now, claimedUntil, limit }) {
      return claim.immediate(claimant, now, claimedUntil, limit);
    },
    async markSent({ id, claimant, at, channel }) {
      return changed(
        `UPDATE mail SET status = 'sent', sent_at = ?, channel = ?, claimed_by = NULL, last_error = NULL WHERE id = ? AND claimed_by = ? AND status = 'pending'`,
        at,
        channelOf(channel),
        id,
        claimant,
      );
    },
    async markAttemptFailed({ id, claimant, error, retryAt }) {
      if (retryAt === undefined) {
        return changed(`UPDATE mail SET status = 'failed', claimed_by = NULL, last_error = ? WHERE id = ? AND claimed_by = ? AND status = 'pending'`, error, id, claimant);
      }
      return changed(`UPDATE mail SET next_attempt_at = ?, claimed_by = NULL, last_error = ? WHERE id = ? AND claimed_by = ? AND status = 'pending'`, retryAt, error, id, claimant);
    },
    async release({ id, claimant, at }) {
      return changed(`UPDATE mail SET next_attempt_at = ?, claimed_by = NULL, attempts = attempts - 1 WHERE id = ? AND claimed_by = ? AND status = 'pending'`, at, id, claimant);
    },
  };
}
