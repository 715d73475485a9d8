import { createAccountsService } from './accounts/accounts-service.js';
import { cacheApiKeyLookups } from './api-keys/api-key-cache.js';
import { createApiKeysService } from './api-keys/api-keys-service.js';
import { createAuditService } from './audit/audit-service.js';
import { createKeyUsageRecorder } from './api-keys/api-key-usage.js';
import type { Config } from './config/config.js';
import { createCursorCodec } from './api/cursors.js';
import type { Registry } from 'prom-client';
import { createMessagesService } from './messages/messages-service.js';
import { createIdempotencyService, IDEMPOTENCY_POLL_MS, IDEMPOTENCY_WAIT_MS } from './idempotency/idempotency-service.js';
import { createVersionReads } from './orders/listing/version-reads.js';
import { createGroupedStatusChanges } from './orders/order-status-changes.js';
import { createOrderOperationsService } from './orders/operations/order-operations-service.js';
import { createOrdersService } from './orders/v1/orders-service.js';
import { createOrdersV2Service } from './orders/v2/orders-v2-service.js';
import { createPetsService } from './pets/pets-service.js';
import { createEventsService } from './events/events-service.js';
import { createOrderHistoryService } from './orders/history/order-history-service.js';
import { systemClock, type Clock } from './shared/clock.js';
import { openStorage } from './storage/open-storage.js';
import type { Services } from './services.js';
import { createServiceMetrics, UNCOUNTED_SERVICE_METRICS, type ServiceMetrics } from './observability/service-metrics.js';
import { createServiceTracing, type ServiceTracing } from './observability/service-tracing.js';
import { createSessionsService } from './users/sessions-service.js';
import { createAttemptThrottle } from './users/attempt-throttle.js';
import { createEmailVerificationService } from './users/email-verification.js';
import { createUsersService } from './users/users-service.js';
import { createSignUpService } from './users/sign-up/sign-up-service.js';
import { createPasskeysService } from './users/passkeys-service.js';
import { createTeamService } from './users/team/team-service.js';
import type { Storage } from './storage/storage.js';
import { createOutageLog, type OutageLog, type OutageLogger } from './shared/outage-log.js';
import { createWebhookSecretBox } from './webhooks/security/webhook-secrets.js';
import { createSecretBox } from './secrets/secret-box.js';
import { createMailService, MAIL_BOX_PURPOSE } from './mail/mail-service.js';
import { createTwoStepService, TWO_STEP_BOX_PURPOSE } from './users/two-step/two-step-service.js';
import { createBreachedPasswordCheck } from './users/breached-passwords.js';
import { createWebhookSender } from './webhooks/delivery/webhook-sender.js';
import { createUrlPolicy, systemResolver } from './delivery/url-policy.js';
import { createWebhooksService } from './webhooks/webhooks-service.js';
import { createWebhookNoticesService } from './webhooks/notices/webhook-notices-service.js';
import { createRequestLogRecorder } from './request-logs/request-log-recorder.js';
import { createRequestLogsService } from './request-logs/request-logs-service.js';
import { createUsageService } from './usage/usage-service.js';

/** Requests held in memory while storage cannot take them (an outage); beyond, the oldest are dropped. */
const REQUEST_LOG_BUFFER_MAX = 100_000;

// The background work's wiring lives beside this root (background-work.ts); these names are where the server and tests found them.
export { createBackgroundEventsPruner, createBackgroundWork, createWebhooksDispatcher } from './background-work.js';

export interface Container {
  readonly config: Config;
  readonly storage: Storage;
  readonly services: Services;
  readonly metrics: ServiceMetrics;
  close(): Promise<void>;
}

/**
 * Builds every service over one storage. The only place dependencies are
 * wired: the container below, and tests through test/support, both call it.
 */
export function createServices(
  storage: Storage,
  config: Pick<Config, 'environment' | 'cursorSecrets' | 'pets' | 'portal' | 'audit' | 'tracing' | 'events' | 'webhooks' | 'mail' | 'requestLogs'>,
  clock: Clock,
  metrics: ServiceMetrics,
): Services {
  metrics.pool(storage);
  metrics.oldestUndelivered({ messages: storage.messages, webhooks: storage.webhooks, mail: storage.mail }, clock);
  return config.tracing === null ? buildServices(storage, config, clock, metrics) : buildServices(storage, config, clock, metrics, createServiceTracing(storage.kind));
}

function buildServices(
  untraced: Storage,
  config: Pick<Config, 'environment' | 'cursorSecrets' | 'pets' | 'portal' | 'audit' | 'events' | 'webhooks' | 'mail' | 'requestLogs'>,
  clock: Clock,
  metrics: ServiceMetrics,
  tracing?: ServiceTracing,
): Services {
  const storage = tracing === undefined ? untraced : tracing.storage(untraced);
  // One group commit per storage: v1 and v2 cancels that arrive together share a commit.
  const grouped = metrics.groupCommitWaits(createGroupedStatusChanges(metrics.groupCommits(storage.orders)));
  const changeStatus = tracing === undefined ? grouped : tracing.changeStatus(grouped);
  // One batch of version reads per turn for every listing, v1 and v2.
  const readVersion = createVersionReads(storage.orders);
  // In front of every key lookup; an account's deletion revokes its keys in its own transaction, then empties it.
  const keyLookups = cacheApiKeyLookups(metrics.keyLookups(storage.apiKeys, 'database'), clock);
  const accounts = createAccountsService({ accountsRepository: storage.accounts, clock, keysRevoked: () => keyLookups.forgetKnown() });
  const sessions = createSessionsService({ sessionsRepository: storage.sessions, clock, timeouts: config.portal.session });
  // One signing key for every cursor of the API (v2 orders, events, the audit trail): each binds its listing in the digest.
  const cursors = createCursorCodec({ secrets: config.cursorSecrets, secretsRepository: storage.secrets, clock });
  const audit = createAuditService({ auditRepository: storage.audit, cursors, clock, retentionDays: config.audit.retentionDays });
  const webhookPolicy = createUrlPolicy(config.webhooks, systemResolver);
  const webhookSecrets = createWebhookSecretBox({ configuredKey: config.webhooks.secretsKey, secretsRepository: storage.secrets, clock });
  const mail = createMailService({
    mailRepository: storage.mail,
    box: createSecretBox(MAIL_BOX_PURPOSE, { configuredKey: config.mail.secretsKey, secretsRepository: storage.secrets, clock }),
    clock,
  });
  const breachedPasswords = config.portal.breachedPasswords === undefined ? undefined : metrics.breachedPasswordChecks(createBreachedPasswordCheck(config.portal.breachedPasswords));
  const twoStep = createTwoStepService({
    twoStepRepository: storage.twoStep,
    box: createSecretBox(TWO_STEP_BOX_PURPOSE, { configuredKey: config.portal.secretsKey, secretsRepository: storage.secrets, clock }),
    clock,
  });
  const attemptThrottle = createAttemptThrottle({ attemptThrottleRepository: storage.attemptThrottle, secretsRepository: storage.secrets, limits: config.portal.throttle, clock });
  return {
    accounts,
    apiKeys: createApiKeysService({
      apiKeysRepository: metrics.keyLookups(keyLookups, 'cache'),
      accountsRepository: storage.accounts,
      clock,
      environment: config.environment,
      audit,
    }),
    keyUsage: createKeyUsageRecorder({ apiKeysRepository: storage.apiKeys, clock }),
    orders: createOrdersService({ ordersRepository: storage.orders, clock, changeStatus, readVersion }),
    orderOperations: createOrderOperationsService({ ordersRepository: storage.orders, clock }),
    ordersV2: createOrdersV2Service({
      ordersRepository: storage.orders,
      changeStatus,
      readVersion,
      cursors,
      clock,
    }),
    orderHistory: createOrderHistoryService({
      ordersRepository: storage.orders,
      requestLogsRepository: storage.requestLogs,
      eventsRepository: storage.events,
      webhooksRepository: storage.webhooks,
    }),
    pets: createPetsService({ petsRepository: storage.pets, clock, lifecycle: config.pets }),
    messages: createMessagesService({ messagesRepository: storage.messages, clock }),
    idempotency: createIdempotencyService({ idempotencyRepository: storage.idempotency, clock, waitMs: IDEMPOTENCY_WAIT_MS, pollMs: IDEMPOTENCY_POLL_MS }),
    users: createUsersService({
      usersRepository: storage.users,
      passkeysRepository: storage.passkeys,
      twoStep,
      ...(breachedPasswords === undefined ? {} : { breachedPasswords }),
      teamRepository: storage.team,
      accounts,
      sessions,
      mail,
      clock,
      signUp: config.portal.signUp,
    }),
    signUp: createSignUpService({
      signUpsRepository: storage.signUps,
      usersRepository: storage.users,
      throttle: attemptThrottle,
      mail,
      clock,
      policy: config.portal.signUp,
      ...(breachedPasswords === undefined ? {} : { breachedPasswords }),
    }),
    team: createTeamService({ teamRepository: storage.team, mail, audit, clock }),
    emailVerification: createEmailVerificationService({ usersRepository: storage.users, mail, clock, required: config.portal.requireVerifiedEmail }),
    sessions,
    attemptThrottle,
    audit,
    passkeys: createPasskeysService({ passkeysRepository: storage.passkeys, usersRepository: storage.users, clock }),
    twoStep,
    events: createEventsService({ eventsRepository: storage.events, cursors, clock, retentionDays: config.events.retentionDays }),
    webhooks: createWebhooksService({
      webhooksRepository: storage.webhooks,
      policy: webhookPolicy,
      secretBox: webhookSecrets,
      // Test events go out as deliveries do: signed, through the SSRF rules, within WEBHOOK_TIMEOUT_MS.
      sender: createWebhookSender({ policy: webhookPolicy, secretBox: webhookSecrets, clock, timeoutMs: config.webhooks.timeoutMs }),
      clock,
      audit,
      cursors,
      maxEndpointsPerAccount: config.webhooks.maxEndpointsPerAccount,
    }),
    webhookNotices: createWebhookNoticesService({ webhookNoticesRepository: storage.webhookNotices, clock, audit }),
    mail,
    requestLogs: createRequestLogsService({
      requestLogsRepository: storage.requestLogs,
      usageRepository: storage.usage,
      cursors,
      clock,
      retentionDays: config.requestLogs.retentionDays,
    }),
    usage: createUsageService({ usageRepository: storage.usage, clock }),
    requestLogRecorder: createRequestLogRecorder({ requestLogsRepository: storage.requestLogs, clock, enabled: config.requestLogs.enabled, maxBuffered: REQUEST_LOG_BUFFER_MAX }),
  };
}

/**
 * The composition root shared by the server and the CLI. `registry`: where the service metrics go; null where nobody scrapes them (METRICS_PORT=off, the CLI), so none are recorded.
 */
export function createContainer(config: Config, { clock = systemClock, registry }: { clock?: Clock; registry: Registry | null }): Container {
  const storage = openStorage(config.database);
  const metrics = registry === null ? UNCOUNTED_SERVICE_METRICS : createServiceMetrics(registry);
  const services = createServices(storage, config, clock, metrics);
  return {
    config,
    storage,
    services,
    metrics,
    close: async () => {
      // Last-used times still in memory are written before the database closes.
      await services.keyUsage.stop().catch(() => undefined);
      // So are the request logs still buffered.
      await services.requestLogRecorder.stop().catch(() => undefined);
      await services.audit.stopPruning();
      services.webhooks.close();
      await storage.close();
    },
  };
}

/** How often an outage is summarized in the log, and the least time between two "database unreachable" lines. */
const OUTAGE_SUMMARY_INTERVAL_MS = 60_000;
/** How often a down database is asked whether it is back, so that its return is noticed without traffic. */
const OUTAGE_PROBE_INTERVAL_MS = 1000;

/**
 * The process's one outage log (shared/outage-log.ts) over the container's
 * storage: it probes the database while it is down and sets the
 * `store_database_up` gauge.
 */
export function createOutages(
  container: { storage: Pick<Storage, 'ping'>; metrics: Pick<ServiceMetrics, 'databaseUp'> },
  logger: { child(bindings: Record<string, unknown>): OutageLogger },
): OutageLog {
  return createOutageLog({
    logger: logger.child({ component: 'outages' }),
    probe: () => container.storage.ping(),
    onChange: container.metrics.databaseUp(),
    summaryIntervalMs: OUTAGE_SUMMARY_INTERVAL_MS,
    probeIntervalMs: OUTAGE_PROBE_INTERVAL_MS,
  });
}
