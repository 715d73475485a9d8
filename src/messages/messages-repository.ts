import type { DeliveryQueue } from '../delivery/delivery-queue.js';

export const MESSAGE_STATUSES = ['queued', 'sent', 'failed'] as const;
export type MessageStatus = (typeof MESSAGE_STATUSES)[number];

/** A quickstart message as stored. Timestamps are ISO 8601 UTC with milliseconds. */
export interface Message {
  id: string;
  accountId: number;
  message: string;
  status: MessageStatus;
  createdAt: string;
  /** Delivery attempts started so far. */
  attempts: number;
  sentAt?: string;
}

/** Binds a message to a client's Idempotency-Key until `expiresAt`. */
export interface IdempotencyBinding {
  key: string;
  /** Hash of the request body the key was first used with. */
  fingerprint: string;
  expiresAt: string;
}

export interface NewMessage {
  id: string;
  accountId: number;
  message: string;
  createdAt: string;
  idempotency?: IdempotencyBinding;
}

/**
 * Either the message was inserted, or the account already holds an unexpired
 * binding for the idempotency key, in which case that message and the
 * fingerprint it was created with are returned and nothing is written.
 */
export type CreateMessageResult =
  | { created: true; message: Message }
  | { created: false; message: Message; fingerprint: string };

/** A message a dispatcher holds until `claimedUntil`; only that claimant can settle it. */
export interface ClaimedMessage {
  id: string;
  accountId: number;
  message: string;
  createdAt: string;
  /** Including the attempt this claim starts. */
  attempts: number;
  /** When it became due (created, retry time, or a lapsed claim's end). */
  dueAt: string;
}

/** Storage of quickstart messages and their delivery queue. Adapters live in src/storage/<database>/. */
export interface MessagesRepository extends DeliveryQueue<ClaimedMessage> {
  /**
   * Inserts a queued message, due at once. With `idempotency`, binding the
   * key and inserting the message are one atomic step guarded by a unique
   * constraint on (account, key): of concurrent requests with one key
   * exactly one inserts; an expired binding is taken over in the same step.
   * Throws NotFoundError('account_not_found') for an unknown account.
   */
  create(message: NewMessage, now: string): Promise<CreateMessageResult>;
  /** The message if it exists and belongs to the account. */
  findForAccount(accountId: number, id: string): Promise<Message | undefined>;
  /*
   * The queue (claimDue, markSent, markAttemptFailed, release): claims
   * queued messages that are due (never attempted, due for retry, or whose
   * previous claim lapsed), oldest due first; a message given up is `failed`.
   */
}
