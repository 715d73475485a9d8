import { createHash, randomUUID } from 'node:crypto';
import { AppError, InvalidInputError, NotFoundError } from '../errors/errors.js';
import type { Clock } from '../shared/clock.js';
import { IDEMPOTENCY_KEY_MAX_LENGTH, isIdempotencyKey } from '../idempotency/idempotency-service.js';
import { MESSAGE_MAX_CHARACTERS } from './messages-bounds.js';
import type { Message, MessagesRepository } from './messages-repository.js';

/** How long a key replays its first response; afterwards it may be used afresh. */
const IDEMPOTENCY_WINDOW_MS = 24 * 60 * 60 * 1000;

// A lone surrogate cannot be stored as UTF-8, and PostgreSQL text cannot hold NUL,
// so either would not come back "as sent".
const LONE_SURROGATE = /\p{Cs}/u;

export interface QueueMessageInput {
  accountId: number;
  message: string;
  idempotencyKey?: string;
}

export interface QueuedMessage {
  message: Message;
  /** True when this is the stored outcome of an earlier request with the same Idempotency-Key. */
  replayed: boolean;
}

export interface MessagesServiceDependencies {
  messagesRepository: MessagesRepository;
  clock: Clock;
  newId?: () => string;
}

export function createMessagesService({ messagesRepository, clock, newId = randomUUID }: MessagesServiceDependencies) {
  const listeners = new Set<() => void>();

  return {
    /**
     * Stores the message durably in the `queued` state; the dispatcher moves
     * it on. With an Idempotency-Key, a repeat of the same request within 24
     * hours returns the first message instead of queueing another, and a
     * different request with that key is refused.
     */
    async queueMessage({ accountId, message, idempotencyKey }: QueueMessageInput): Promise<QueuedMessage> {
      if (message.length === 0) throw new InvalidInputError('message', 'must not be empty.');
      if ([...message].length > MESSAGE_MAX_CHARACTERS) {
        throw new InvalidInputError('message', `must be at most ${MESSAGE_MAX_CHARACTERS} characters.`);
      }
      if (LONE_SURROGATE.test(message) || message.includes('\u0000')) {
        throw new InvalidInputError('message', 'must be well-formed Unicode without NUL characters.');
      }
      if (idempotencyKey !== undefined && !isIdempotencyKey(idempotencyKey)) {
        throw new InvalidInputError('idempotencyKey', `must be 1 to ${IDEMPOTENCY_KEY_MAX_LENGTH} visible ASCII characters.`);
      }
      const now = clock.now();
      const fingerprint = createHash('sha256').update(message, 'utf8').digest('hex');
      const result = await messagesRepository.create(
        {
          id: newId(),
          accountId,
          message,
          createdAt: now.toISOString(),
          ...(idempotencyKey === undefined
            ? {}
            : {
                idempotency: {
                  key: idempotencyKey,
                  fingerprint,
                  expiresAt: new Date(now.getTime() + IDEMPOTENCY_WINDOW_MS).toISOString(),
                },
              }),
        },
        now.toISOString(),
      );
      if (result.created) {
        for (const listener of listeners) listener();
        return { message: result.message, replayed: false };
      }
      if (result.fingerprint !== fingerprint) {
        throw new AppError(
          'idempotency_key_reused',
          'This Idempotency-Key was already used with a different request body in the last 24 hours; use a new key for a new message.',
        );
      }
      // Stripe's semantics: the replay is the first response, which said
      // `queued`; the current status is GET /messages/{id}'s to tell.
      return { message: { ...result.message, status: 'queued' }, replayed: true };
    },

    /** The account's message; another account's is reported as not found. */
    async getMessage(accountId: number, id: string): Promise<Message> {
      const message = await messagesRepository.findForAccount(accountId, id);
      if (message === undefined) throw new NotFoundError('message_not_found', 'No message with this id exists.');
      return message;
    },

    /** Calls `listener` after each newly queued message, so a dispatcher in this process can start at once. */
    onQueued(listener: () => void): () => void {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}

export type MessagesService = ReturnType<typeof createMessagesService>;
