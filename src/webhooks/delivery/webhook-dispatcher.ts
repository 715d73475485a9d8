import type { Logger } from 'pino';
import type { WebhooksConfig } from '../../config/config.js';
import { createDeliveryEngine, type Sender } from '../../delivery/delivery-engine.js';
import type { HostLoad } from '../../delivery/engine-pacing.js';
import { scheduledRetryDelayMs } from '../../delivery/retry-schedule.js';
import type { Clock } from '../../shared/clock.js';
import type { OutageLog } from '../../shared/outage-log.js';
import type { ClaimedWebhookDelivery, WebhooksRepository } from '../webhooks-repository.js';

/** The engine's share of the process while it serves requests (see yieldTo). */
const SHARE_WHILE_BUSY = 0.05;

/** Webhook deliveries on the shared delivery engine. */
export function createWebhookDispatcher({
  webhooksRepository,
  sender,
  clock,
  logger,
  outages,
  config,
  random = Math.random,
  load,
}: {
  webhooksRepository: WebhooksRepository;
  sender: Sender<ClaimedWebhookDelivery>;
  clock: Clock;
  logger: Logger;
  outages: Pick<OutageLog, 'databaseUnreachable'>;
  config: Pick<WebhooksConfig, 'retryScheduleMs' | 'timeoutMs' | 'pollIntervalMs' | 'claimMarginMs' | 'maxInFlight' | 'maxInFlightPerEndpoint'>;
  random?: () => number;
  /** What the host did since the last call (the engine yields while it is busy); undefined: never yield. */
  load?: () => HostLoad;
}) {
  return createDeliveryEngine({
    name: 'webhooks',
    queue: webhooksRepository,
    sender,
    clock,
    logger,
    outages,
    config: {
      pollIntervalMs: config.pollIntervalMs,
      attemptTimeoutMs: config.timeoutMs,
      maxInFlight: config.maxInFlight,
      perDestination: config.maxInFlightPerEndpoint,
      claimMarginMs: config.claimMarginMs,
    },
    retryDelayMs: (attempts, jitter) => scheduledRetryDelayMs(config.retryScheduleMs, attempts, jitter),
    random,
    ...(load === undefined ? {} : { yieldTo: { load, share: SHARE_WHILE_BUSY } }),
  });
}
