import type { Logger } from 'pino';
import type { Config } from './config/config.js';
import type { HostLoad } from './delivery/engine-pacing.js';
import { createUrlPolicy, systemResolver } from './delivery/url-policy.js';
import { createEventsPruner, type EventsPruner } from './events/events-pruner.js';
import { createMailDispatcher, type MailDispatcher } from './mail/mail-dispatcher.js';
import { createSmtpSender, outboxSender } from './mail/mail-senders.js';
import { createMessagesUrlDelivery, recordOnlyDelivery } from './messages/messages-delivery.js';
import { createMessageDispatcher, type MessageDispatcher } from './messages/messages-dispatcher.js';
import { UNCOUNTED_SERVICE_METRICS, type ServiceMetrics } from './observability/service-metrics.js';
import { tracedDelivery, tracedWebhookSender } from './observability/service-tracing.js';
import type { Services } from './services.js';
import { systemClock, type Clock } from './shared/clock.js';
import type { OutageLog, OutageSource } from './shared/outage-log.js';
import { DatabaseUnavailableError } from './errors/errors.js';
import type { Storage } from './storage/storage.js';
import { createWebhookDispatcher } from './webhooks/delivery/webhook-dispatcher.js';
import { createWebhookSender } from './webhooks/delivery/webhook-sender.js';
import { createWebhookSecretBox } from './webhooks/security/webhook-secrets.js';

/*
 * The background work of a serving process, wired over the composition
 * root's container (composition.ts): the delivery engines of quickstart
 * messages, webhooks and mail, and the periodic jobs. Kept apart from the
 * root so that each engine's wiring sits with the others.
 */

/** What the background work needs of the container (composition.ts's Container has it all). */
interface Container {
  readonly config: Config;
  readonly storage: Storage;
  readonly services: Services;
  readonly metrics: ServiceMetrics;
}

/**
 * The background dispatcher of quickstart messages over the container's
 * storage, woken whenever this process queues a message.
 */
function createMessagesDispatcher(
  container: Pick<Container, 'config' | 'storage' | 'services' | 'metrics'>,
  logger: Logger,
  outages: OutageLog,
  clock: Clock = systemClock,
): MessageDispatcher {
  const { messages } = container.config;
  const delivery =
    messages.webhookUrl === undefined ? recordOnlyDelivery : createMessagesUrlDelivery({ url: messages.webhookUrl, timeoutMs: messages.webhookTimeoutMs });
  const dispatcher = createMessageDispatcher({
    messagesRepository: container.metrics.deliveryQueue('messages', container.storage.messages),
    delivery: container.metrics.deliveries(container.config.tracing === null ? delivery : tracedDelivery(delivery)),
    clock,
    logger,
    outages,
    config: messages,
  });
  container.services.messages.onQueued(() => dispatcher.wake());
  return dispatcher;
}

/** The background pruning of events past their retention (EVENTS_RETENTION_DAYS), every EVENTS_PRUNE_INTERVAL_MS. */
export function createBackgroundEventsPruner(container: Pick<Container, 'config' | 'services'>, logger: Logger): EventsPruner {
  return createEventsPruner({
    eventsService: container.services.events,
    intervalMs: container.config.events.pruneIntervalMs,
    onError: (err) => logger.warn({ err }, 'could not prune expired events'),
  });
}

/**
 * The background engine delivering webhooks over the container's storage,
 * woken whenever this process makes deliveries due (a commit that queues
 * them, a redelivery, an endpoint enabled again) and, on PostgreSQL, when
 * another process does; otherwise it polls.
 */
export function createWebhooksDispatcher(
  container: Pick<Container, 'config' | 'storage' | 'services'> & { metrics?: ServiceMetrics },
  logger: Logger,
  outages: Pick<OutageLog, 'databaseUnreachable'>,
  clock: Clock = systemClock,
  load?: () => HostLoad,
): { start(): void; wake(): void; stop(): Promise<void> } {
  const { webhooks } = container.config;
  const sender = createWebhookSender({
    policy: createUrlPolicy(webhooks, systemResolver),
    secretBox: createWebhookSecretBox({ configuredKey: webhooks.secretsKey, secretsRepository: container.storage.secrets, clock }),
    clock,
    timeoutMs: webhooks.timeoutMs,
  });
  const metrics = container.metrics ?? UNCOUNTED_SERVICE_METRICS;
  const webhooksRepository = metrics.deliveryQueue('webhooks', container.storage.webhooks);
  const traced = container.config.tracing === null ? sender : tracedWebhookSender(sender);
  const engine = createWebhookDispatcher({ webhooksRepository, sender: traced, clock, logger, outages, config: webhooks, ...(load === undefined ? {} : { load }) });
  // Handed over at once: this process's commits that queue deliveries, a redelivery, an endpoint enabled again; and the endpoints its settlements disable, counted.
  const unsubscribe = [
    container.storage.onDeliveriesQueued(() => engine.wake()),
    container.services.webhooks.onQueued(() => engine.wake()),
    container.storage.onEndpointDisabled((reason) => metrics.endpointDisabled(reason)),
  ];
  const log = logger.child({ component: 'webhooks-delivery' });
  let stopped = false;
  return {
    start() {
      engine.start();
      // Other processes' commits (the CLI, another server) through the database where it can tell; else the poll.
      container.storage
        .watchOtherProcesses()
        .then(({ watching, how }) => {
          if (stopped) return;
          if (watching) log.info({ how }, "other processes' deliveries reach this engine at once");
          else log.info({ how, pollIntervalMs: webhooks.pollIntervalMs }, "other processes' deliveries are found by polling");
        })
        .catch((error: unknown) => log.warn({ err: error }, "could not watch for other processes' deliveries; polling"));
    },
    wake: engine.wake,
    async stop() {
      stopped = true;
      for (const off of unsubscribe) off();
      await engine.stop();
      sender.close();
    },
  };
}

/**
 * The background engine sending mail over the container's storage
 * (docs/mail.md): through SMTP_URL's server, or into the local outbox when
 * it is unset; woken whenever this process commits mail
 * (Storage.onMailQueued), else it polls every MAIL_POLL_INTERVAL_MS (other
 * processes' mail, retries that came due).
 */
export function createMailEngine(
  container: Pick<Container, 'config' | 'storage' | 'services'> & { metrics?: ServiceMetrics },
  logger: Logger,
  outages: Pick<OutageLog, 'databaseUnreachable'>,
  clock: Clock = systemClock,
): MailDispatcher {
  const { mail } = container.config;
  const sender = mail.smtp === null ? outboxSender : createSmtpSender({ smtp: mail.smtp, from: mail.from, timeoutMs: mail.timeoutMs, open: container.services.mail.open });
  const metrics = container.metrics ?? UNCOUNTED_SERVICE_METRICS;
  const dispatcher = createMailDispatcher({ mailRepository: metrics.deliveryQueue('mail', container.storage.mail), sender, clock, logger, outages, config: mail });
  let unsubscribe: (() => void) | undefined;
  return {
    start() {
      unsubscribe ??= container.storage.onMailQueued(() => dispatcher.wake());
      dispatcher.start();
    },
    wake: dispatcher.wake,
    async stop() {
      unsubscribe?.();
      await dispatcher.stop();
    },
  };
}

/** The background work of a serving process, started together and stopped together. */
export interface BackgroundWork {
  start(): void;
  /** Stops the engines (queued deliveries stay queued for the next start) and the periodic jobs. */
  stop(): Promise<void>;
}

/**
 * Everything a serving process runs besides its hosts: the messages,
 * webhooks and mail delivery engines, the pruning of events and of the
 * audit trail, the flushing of API keys' last-used times, and the logging
 * of audit entries that could not be written. `load` says what the process served
 * since it was last asked (while it is busy the webhook engine yields: see
 * docs/webhooks.md).
 */
export function createBackgroundWork(
  container: Pick<Container, 'config' | 'storage' | 'services' | 'metrics'>,
  logger: Logger,
  outages: OutageLog,
  load: () => HostLoad,
): BackgroundWork {
  const { config, services } = container;
  /**
   * A failure of periodic work: an unreachable database is the outage log's
   * to count (one line when it goes, one when it is back, no stack per
   * failure: shared/outage-log.ts); anything else is a warning with the error.
   */
  const failed =
    (source: OutageSource, message: string) =>
    (err: unknown): void => {
      if (err instanceof DatabaseUnavailableError) outages.databaseUnreachable(err, source);
      else logger.warn({ err }, message);
    };
  // Requests the request logs dropped (their buffer full through a long outage): said once per growth, without a stack.
  let droppedLogged = 0;
  const requestLogsFailed = failed('request-logs', 'could not write request logs; kept in memory for the next attempt');
  const messages = createMessagesDispatcher(container, logger, outages);
  const eventsPruner = createBackgroundEventsPruner(container, logger);
  // Idempotency-Key records live 24 hours: pruned in the same batched rounds, on the events' schedule.
  const idempotencyPruner = createEventsPruner({
    eventsService: services.idempotency,
    intervalMs: config.events.pruneIntervalMs,
    onError: failed('pruning', 'could not prune expired Idempotency-Key records'),
  });
  // Request logs live REQUEST_LOG_RETENTION_DAYS: pruned in the same batched rounds, on their own schedule.
  const requestLogsPruner = createEventsPruner({
    eventsService: services.requestLogs,
    intervalMs: config.requestLogs.pruneIntervalMs,
    onError: failed('pruning', 'could not prune expired request logs'),
  });
  const webhooks = createWebhooksDispatcher(container, logger, outages, undefined, load);
  const mail = createMailEngine(container, logger, outages);
  return {
    start() {
      services.keyUsage.start(config.limits.keyUsageFlushMs, failed('key-usage', 'could not record API key usage'));
      // The change an entry describes has committed already: a lost entry is logged, with what it said.
      services.audit.onRecordFailed((err, entry) => logger.error({ err, audit: entry }, 'could not write an audit trail entry'));
      services.audit.startPruning(config.audit.pruneIntervalMs, failed('pruning', 'could not prune the audit trail'));
      messages.start();
      eventsPruner.start();
      idempotencyPruner.start();
      services.requestLogRecorder.start(config.requestLogs.flushMs, (err) => {
        requestLogsFailed(err);
        const dropped = services.requestLogRecorder.dropped();
        if (dropped > droppedLogged) {
          droppedLogged = dropped;
          logger.warn({ droppedSinceStart: dropped }, `request logs dropped: ${dropped} requests since start, the buffer full while they could not be written`);
        }
      });
      requestLogsPruner.start();
      webhooks.start();
      mail.start();
    },
    async stop() {
      await Promise.all([messages.stop(), webhooks.stop(), mail.stop()]);
      await Promise.all([eventsPruner.stop(), idempotencyPruner.stop(), requestLogsPruner.stop()]);
    },
  };
}

