import type { Logger } from 'pino';
import type { MessagesConfig } from '../config/config.js';
import type { OutageLog } from '../shared/outage-log.js';
import { createDeliveryEngine } from '../delivery/delivery-engine.js';
import type { Clock } from '../shared/clock.js';
import type { MessageDelivery } from './messages-delivery.js';
import type { MessagesRepository } from './messages-repository.js';

/** Messages in flight at once: they all go to the one operator webhook. */
const IN_FLIGHT = 16;

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
 * The quickstart messages on the shared delivery engine: the messages table
 * is its queue, the operator's webhook (or recording) its sender, and a
 * message is `failed` after maxAttempts.
 */
export function createMessageDispatcher({ messagesRepository, delivery, clock, logger, outages, config, random = Math.random }: DispatcherDependencies) {
  const engine = createDeliveryEngine({
    name: 'messages',
    queue: messagesRepository,
    sender: delivery,
    clock,
    logger,
    outages,
    config: { pollIntervalMs: config.pollIntervalMs, attemptTimeoutMs: config.webhookTimeoutMs, maxInFlight: IN_FLIGHT, perDestination: IN_FLIGHT },
    retryDelayMs: (attempts, jitter) => (attempts >= config.maxAttempts ? undefined : retryDelayMs(attempts, config, jitter)),
    random,
  });
  return {
    start(): void {
      logger.info({ component: 'messages-dispatcher', delivery: delivery.kind }, 'messages dispatcher started');
      engine.start();
    },
    wake: engine.wake,
    stop: engine.stop,
  };
}

export type MessageDispatcher = ReturnType<typeof createMessageDispatcher>;
