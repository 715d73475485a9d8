import type { ClaimedMail, MailChannel, MailKind, MailRecord, MailStatus, NewMail, StoredMail } from '../mail/mail-repository.js';

/** A mail row as both adapters select it (times already ISO 8601 text); `sealed_body` only where the body is read. */
export interface MailRow {
  id: string;
  kind: string;
  recipient: string;
  subject: string;
  account_id: bigint | number | null;
  status: string;
  attempts: bigint | number;
  next_attempt_at: string;
  last_error: string | null;
  created_at: string;
  sent_at: string | null;
  channel: string | null;
  sealed_body?: string;
}

export interface ClaimedMailRow {
  id: string;
  kind: string;
  recipient: string;
  subject: string;
  sealed_body: string;
  created_at: string;
  attempts: bigint | number;
  due_at: string;
}

/** The columns a new mail is written to, in the order both adapters insert them (status `pending`, due at its creation, follow). */
export function mailColumns(mail: NewMail): [string, string, string, string, string, number | null, string] {
  return [mail.id, mail.kind, mail.recipient, mail.subject, mail.sealedBody, mail.accountId ?? null, mail.createdAt];
}

/** What a successful attempt's channel is stored as (the sender reports it; an unknown one is SMTP's). */
export function channelOf(channel: string | undefined): MailChannel {
  return channel === 'outbox' ? 'outbox' : 'smtp';
}

export function toMailRecord(row: MailRow): MailRecord {
  return {
    id: row.id,
    // Written only by the service, from the closed lists.
    kind: row.kind as MailKind,
    recipient: row.recipient,
    subject: row.subject,
    ...(row.account_id === null ? {} : { accountId: Number(row.account_id) }),
    status: row.status as MailStatus,
    attempts: Number(row.attempts),
    createdAt: row.created_at,
    ...(row.status === 'pending' ? { nextAttemptAt: row.next_attempt_at } : {}),
    ...(row.last_error === null ? {} : { lastError: row.last_error }),
    ...(row.sent_at === null ? {} : { sentAt: row.sent_at }),
    ...(row.channel === null ? {} : { channel: row.channel as MailChannel }),
  };
}

export function toStoredMail(row: MailRow & { sealed_body: string }): StoredMail {
  return { ...toMailRecord(row), sealedBody: row.sealed_body };
}

/** Claimed mail, oldest first. */
export function toClaimedMail(rows: readonly ClaimedMailRow[]): ClaimedMail[] {
  return rows
    .map((row): ClaimedMail => ({
      id: row.id,
      kind: row.kind as MailKind,
      recipient: row.recipient,
      subject: row.subject,
      sealedBody: row.sealed_body,
      createdAt: row.created_at,
      attempts: Number(row.attempts),
      dueAt: row.due_at,
    }))
    .sort((a, b) => (a.dueAt < b.dueAt ? -1 : a.dueAt > b.dueAt ? 1 : 0));
}
