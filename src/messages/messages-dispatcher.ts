import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { MessagesConfig } from '../config/config.js';
import { DatabaseUnavailableError } from '../errors/errors.js';
import type { OutageLog } from '../shared/outage-log.js';
import type { Clock } from '../shared/clock.js';
import { DeliveryError, type MessageDelivery } from './messages-delivery.js';
import type { ClaimedMessage, MessagesRepository } from './messages-repository.js';

const BATCH_SIZE = 16;
/** A claim outlives the slowest possible attempt by this much before another server may retry it. */
const CLAIM_MARGIN_MS = 60_000;

export interface DispatcherDependencies {
  messagesRepository: MessagesRepository;
  delivery: MessageDelivery;
  clock: Clock;
  logger: Logger;
  /** Where an unreachable database is reported: once per outage, not once per poll. */
  outages: Pick<OutageLog, 'databaseUnreachable'>;
  config: Pick<MessagesConfig, 'retryBaseMs' | 'retryMaxMs' | 'maxAttempts' | 'pollIntervalMs' | 'webhookTimeoutMs'>;
  /** In [0, 1); spreads retries of messages that failed together. */
  random?: () => number;
}

/**
 * The retry delay after `attempts` failed attempts: exponential from
 * retryBaseMs, capped at retryMaxMs, with the upper half jittered.
 */
export function retryDelayMs(attempts: number, { retryBaseMs, retryMaxMs }: Pick<MessagesConfig, 'retryBaseMs' | 'retryMaxMs'>, random: number): number {
  const exponential = Math.min(retryMaxMs, retryBaseMs * 2 ** Math.min(attempts - 1, 40));
  return Math.round(exponential / 2 + (exponential / 2) * random);
}

/**
 * Moves queued messages on: claims due ones from storage (atomically, so
 * several servers on one database never take the same message), delivers
 * them, and records `sent`, a retry time, or `failed` after maxAttempts.
 * A claim lapses if its holder dies, so a crashed server's messages are
 * retried by whoever runs next; messages queued before a restart are simply
 * due and are picked up on the first poll.
 */
export function createMessageDispatcher({ messagesRepository, delivery, clock, logger, outages, config, random = Math.random }: DispatcherDependencies) {
  const claimant = randomUUID();
  const log = logger.child({ component: 'messages-dispatcher' });
  const inFlight = new AbortController();
  let stopping = false;
  let woken = false;
  let wakeUp: (() => void) | undefined;
  let running: Promise<void> | undefined;

  function idle(ms: number): Promise<void> {
    if (woken || stopping) {
      woken = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        wakeUp = undefined;
        woken = false;
        resolve();
      }
      wakeUp = done;
    });
  }

  async function dispatch(message: ClaimedMessage): Promise<void> {
    const settlement = { id: message.id, claimant };
    try {
      await delivery.deliver(message, inFlight.signal);
      await messagesRepository.markSent({ ...settlement, at: clock.now().toISOString() });
      log.info({ messageId: message.id, attempts: message.attempts }, 'message sent');
    } catch (error) {
      if (inFlight.signal.aborted) {
        await messagesRepository.release({ ...settlement, at: clock.now().toISOString() });
        return;
      }
      const reason = error instanceof DeliveryError ? error.message : 'Delivery failed unexpectedly.';
      if (!(error instanceof DeliveryError)) log.error({ err: error, messageId: message.id }, 'message delivery failed unexpectedly');
      const now = clock.now();
      const giveUp = message.attempts >= config.maxAttempts;
      const retryAt = giveUp ? undefined : new Date(now.getTime() + retryDelayMs(message.attempts, config, random())).toISOString();
      await messagesRepository.markAttemptFailed({ ...settlement, at: now.toISOString(), error: reason, retryAt });
      if (giveUp) log.warn({ messageId: message.id, attempts: message.attempts, reason }, 'message failed for good');
      else log.info({ messageId: message.id, attempts: message.attempts, reason, retryAt }, 'message delivery failed; will retry');
    }
  }

  async function loop(): Promise<void> {
    while (!stopping) {
      let claimed: ClaimedMessage[];
      try {
        const now = clock.now();
        claimed = await messagesRepository.claimDue({
          claimant,
          now: now.toISOString(),
          claimedUntil: new Date(now.getTime() + config.webhookTimeoutMs + CLAIM_MARGIN_MS).toISOString(),
          limit: BATCH_SIZE,
        });
      } catch (error) {
        if (error instanceof DatabaseUnavailableError) outages.databaseUnreachable(error, 'messages-dispatcher');
        else log.error({ err: error }, 'could not claim messages; will try again');
        await idle(config.pollIntervalMs);
        continue;
      }
      if (claimed.length === 0) {
        await idle(config.pollIntervalMs);
        continue;
      }
      await Promise.all(
        claimed.map((message) =>
          dispatch(message).catch((error: unknown) => {
            // Storage failed while settling: the claim lapses and the message is retried then.
            if (error instanceof DatabaseUnavailableError) outages.databaseUnreachable(error, 'messages-dispatcher');
            else log.error({ err: error, messageId: message.id }, 'could not record the delivery outcome');
          }),
        ),
      );
    }
  }

  return {
    start(): void {
      if (running !== undefined) return;
      log.info({ delivery: delivery.kind }, 'messages dispatcher started');
      running = loop();
    },
    /** Looks for due messages now instead of at the next poll. */
    wake(): void {
      woken = true;
      wakeUp?.();
    },
    /** Stops claiming, interrupts deliveries in flight (they are released, not counted) and waits for the loop to end. */
    async stop(): Promise<void> {
      stopping = true;
      inFlight.abort();
      wakeUp?.();
      await running;
    },
  };
}

export type MessageDispatcher = ReturnType<typeof createMessageDispatcher>;
