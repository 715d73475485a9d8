import type { ClaimedItem, DeliveryQueue } from '../delivery/delivery-queue.js';

/** What a mail is for; each has its template (mail-templates.ts). */
export const MAIL_KINDS = ['password-reset', 'email-verification', 'email-change-notice', 'invitation', 'sign-up-confirmation', 'sign-up-account-exists', 'security-notice'] as const;
export type MailKind = (typeof MAIL_KINDS)[number];

/** `pending` until the SMTP server took it (or the outbox kept it): then `sent`; `failed` once the retry schedule is spent. */
export const MAIL_STATUSES = ['pending', 'sent', 'failed'] as const;
export type MailStatus = (typeof MAIL_STATUSES)[number];

/** How a sent mail went: handed to the SMTP server, or kept in the local outbox (SMTP_URL unset). */
export const MAIL_CHANNELS = ['smtp', 'outbox'] as const;
export type MailChannel = (typeof MAIL_CHANNELS)[number];

/**
 * A mail ready to queue: its body (text and HTML parts) sealed, since its
 * links carry one-time tokens (MailService.prepare seals it).
 */
export interface NewMail {
  id: string;
  kind: MailKind;
  recipient: string;
  subject: string;
  /** The parts as sealed JSON (secrets/secret-box.ts): never stored in clear. */
  sealedBody: string;
  /** The account it concerns, when there is one. */
  accountId?: number;
  createdAt: string;
}

/** A queued mail as the operator sees it: everything but its body. Timestamps are ISO 8601 UTC with milliseconds. */
export interface MailRecord {
  id: string;
  kind: MailKind;
  recipient: string;
  subject: string;
  accountId?: number;
  status: MailStatus;
  /** Attempts started so far. */
  attempts: number;
  createdAt: string;
  /** While pending: when the engine takes it next (during an attempt, when that claim lapses). */
  nextAttemptAt?: string;
  /** The last failed attempt's reason (no address, no secret), until it is sent. */
  lastError?: string;
  sentAt?: string;
  /** Set once sent. */
  channel?: MailChannel;
}

/** A mail with its sealed body, as found by id. */
export interface StoredMail extends MailRecord {
  sealedBody: string;
}

/** A mail the engine holds until its claim lapses; only that claimant can settle it. */
export interface ClaimedMail extends ClaimedItem {
  kind: MailKind;
  recipient: string;
  subject: string;
  sealedBody: string;
  createdAt: string;
}

export interface MailQuery {
  /** Only mail to this address (compared as stored: the callers normalise addresses). */
  recipient?: string;
  status?: MailStatus;
  /** Newest first, at most this many. */
  limit: number;
}

/** Queued outgoing mail and its delivery queue. Adapters live in src/storage/<database>/. */
export interface MailRepository extends DeliveryQueue<ClaimedMail> {
  /**
   * Queues a mail, due at once. A change that sends mail queues it in its
   * own transaction instead, with the adapter's `insertMail` helper
   * (storage/<database>/…-mail-repository.ts), so that neither commits
   * without the other.
   */
  enqueue(mail: NewMail): Promise<void>;
  /** Newest first. */
  list(query: MailQuery): Promise<MailRecord[]>;
  find(id: string): Promise<StoredMail | undefined>;
  /*
   * The queue (claimDue, markSent, markAttemptFailed, release): claims
   * pending mail that is due (never attempted, due for retry, or whose
   * previous claim lapsed), oldest due first; markSent records the channel
   * the sender reported (AttemptRecord.channel); a mail given up is `failed`.
   */
}
