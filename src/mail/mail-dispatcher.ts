import type { Logger } from 'pino';
import type { MailConfig } from '../config/config.js';
import { createDeliveryEngine } from '../delivery/delivery-engine.js';
import type { Clock } from '../shared/clock.js';
import type { OutageLog } from '../shared/outage-log.js';
import { scheduledRetryDelayMs } from '../delivery/retry-schedule.js';
import type { MailRepository } from './mail-repository.js';
import type { MailSender } from './mail-senders.js';

/** Mail in flight at once: it all goes to the one SMTP server, which would rather see a few connections than many. */
const IN_FLIGHT = 4;

/**
 * Outgoing mail on the shared delivery engine: the mail table is its queue,
 * SMTP (or the local outbox) its sender, MAIL_RETRY_SCHEDULE its retries
 * (±20 % jitter, as webhooks'); a mail is `failed` once the schedule is
 * spent. Each failed attempt is logged once, by the engine, with the reason
 * `mail list` shows.
 */
export function createMailDispatcher({
  mailRepository,
  sender,
  clock,
  logger,
  outages,
  config,
  random = Math.random,
}: {
  mailRepository: MailRepository;
  sender: MailSender;
  clock: Clock;
  logger: Logger;
  outages: Pick<OutageLog, 'databaseUnreachable'>;
  config: Pick<MailConfig, 'retryScheduleMs' | 'timeoutMs' | 'pollIntervalMs'>;
  random?: () => number;
}) {
  const engine = createDeliveryEngine({
    name: 'mail',
    queue: mailRepository,
    sender,
    clock,
    logger,
    outages,
    config: { pollIntervalMs: config.pollIntervalMs, attemptTimeoutMs: config.timeoutMs, maxInFlight: IN_FLIGHT, perDestination: IN_FLIGHT },
    retryDelayMs: (attempts, jitter) => scheduledRetryDelayMs(config.retryScheduleMs, attempts, jitter),
    random,
  });
  return {
    start(): void {
      logger.info({ component: 'mail-dispatcher', channel: sender.channel }, sender.channel === 'smtp' ? 'mail goes out through SMTP' : 'mail is kept in the local outbox (SMTP_URL is unset)');
      engine.start();
    },
    wake: engine.wake,
    async stop(): Promise<void> {
      await engine.stop();
      sender.close();
    },
  };
}

export type MailDispatcher = ReturnType<typeof createMailDispatcher>;
