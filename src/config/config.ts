import path from 'node:path';
import { parseBaseUrl, parseDatabaseUrl, parseInstant, parseVersionedBaseUrl } from './config-formats.js';
import type { EnvironmentValues } from './config-schema.js';
import { deepFreeze } from './deep-freeze.js';
import { readEnvironment, type Env, type EnvironmentReading } from './env-reader.js';
import { limitsFrom, type Limits } from './limits.js';
import { portalFrom, type PortalConfig } from './portal-config.js';
import { messagesFrom, webhooksFrom, type MessagesConfig, type WebhooksConfig } from './delivery-config.js';
import { mailFrom, type MailConfig } from './mail-config.js';

export type { PortalConfig } from './portal-config.js';
export type { MessagesConfig, WebhooksConfig } from './delivery-config.js';
export type { MailConfig } from './mail-config.js';

export type LogLevel = EnvironmentValues['server']['LOG_LEVEL'];
export type DeploymentEnvironment = EnvironmentValues['api']['STORE_ENVIRONMENT'];
export type SqliteSynchronous = EnvironmentValues['database']['SQLITE_SYNCHRONOUS'];

export interface SqliteDatabaseConfig {
  kind: 'sqlite';
  /** Absolute path of the database file. */
  path: string;
  /**
   * PRAGMA synchronous. `full` (the default) makes every acknowledged commit
   * survive power loss; `normal` is faster but may lose the last commits then.
   */
  synchronous?: SqliteSynchronous;
}

export interface PostgresDatabaseConfig {
  kind: 'postgres';
  /** The connection URL; may hold a password, so it is never logged or echoed. */
  url: string;
  /** Connections per process. */
  poolSize: number;
}

export type DatabaseConfig = SqliteDatabaseConfig | PostgresDatabaseConfig;

export interface QuickstartConfig {
  /** The quickstart example host's own listener (same HOST as the store host). */
  readonly port: number;
  /** Where clients reach the quickstart host; the server URL of its OpenAPI document. */
  readonly publicUrl: string;
}

export interface MetricsConfig {
  /** The Prometheus listener's interface and port; never one of the public hosts. */
  readonly host: string;
  readonly port: number;
}

export interface Config {
  readonly host: string;
  readonly port: number;
  readonly database: Readonly<DatabaseConfig>;
  readonly logLevel: LogLevel;
  /** Which environment this deployment is: decides the API key prefix it issues and accepts. */
  readonly environment: DeploymentEnvironment;
  /** How long shutdown waits for in-flight requests before giving up. */
  readonly shutdownGraceMs: number;
  /**
   * Keys for the v2 listing cursors' HMAC: the first signs, all verify (so a
   * key can be rotated without breaking walks in progress). Empty: use a key
   * generated once and kept in the database.
   */
  readonly cursorSecrets: readonly string[];
  /** The quickstart example host; null when QUICKSTART_PORT=off. */
  readonly quickstart: QuickstartConfig | null;
  /** The Prometheus metrics listener; null when METRICS_PORT=off. */
  readonly metrics: MetricsConfig | null;
  readonly messages: MessagesConfig;
  /** OpenTelemetry tracing; null (the default) when off. */
  readonly tracing: TracingConfig | null;
  readonly webhooks: WebhooksConfig;
  /** Outgoing mail: SMTP_URL's server, or the local outbox when unset (docs/mail.md). */
  readonly mail: MailConfig;
  /** Rate limits, timeouts, connection and load bounds (limits.ts). */
  readonly limits: Limits;
  /**
   * Where clients reach the API (includes the /v1 prefix): the OpenAPI
   * documents' production server. Absent: the address the server listens on.
   */
  readonly publicBaseUrl?: string;
  /** The documents' staging server (with /v1); absent: none is listed. */
  readonly stagingBaseUrl?: string;
  /** The deprecated pet lookup's lifecycle: deprecated since, and gone from (sunset >= deprecation). */
  readonly pets: Readonly<PetsLifecycleConfig>;
  /** The self-service portal: its host (`port` null when PORTAL_PORT=off), sign-up policy, sessions and throttling. */
  readonly portal: PortalConfig;
  readonly audit: AuditConfig;
  /** The event feed's retention, and how often the server prunes it. */
  readonly events: Readonly<EventsConfig>;
  /** The store host's request logs (docs/request-logs.md). */
  readonly requestLogs: Readonly<RequestLogsConfig>;
}

export interface RequestLogsConfig {
  /** REQUEST_LOGS=on. */
  enabled: boolean;
  retentionDays: number;
  pruneIntervalMs: number;
  /** How often buffered logs are written (at most a second: what kill -9 may lose). */
  flushMs: number;
}

export interface EventsConfig {
  retentionDays: number;
  pruneIntervalMs: number;
}

export interface AuditConfig {
  /** Entries older than this many days are deleted. */
  readonly retentionDays: number;
  /** How often the server prunes. */
  readonly pruneIntervalMs: number;
}

export interface TracingConfig {
  /** Where spans are POSTed (OTLP/HTTP, JSON). */
  readonly tracesUrl: string;
  readonly serviceName: string;
  /** Which requests are traced: OTEL_TRACES_SAMPLER and, for the ratio samplers, OTEL_TRACES_SAMPLER_ARG. */
  readonly sampler: { readonly name: EnvironmentValues['tracing']['OTEL_TRACES_SAMPLER']; readonly ratio: number };
}

/** The OTLP/HTTP default when OTEL_TRACES_EXPORTER=otlp names no endpoint (the specification's). */
const DEFAULT_OTLP_ENDPOINT = 'http://localhost:4318';

/**
 * Tracing is off unless an OTLP endpoint is set or OTEL_TRACES_EXPORTER=otlp
 * (unlike the OpenTelemetry SDKs, whose exporter defaults to otlp: a server
 * that nobody asked to trace does not try to reach a collector).
 */
function tracingFrom(tracing: EnvironmentValues['tracing']): TracingConfig | null {
  const endpoint = tracing.OTEL_EXPORTER_OTLP_ENDPOINT;
  const tracesEndpoint = tracing.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT;
  const on =
    tracing.OTEL_SDK_DISABLED !== 'true' &&
    tracing.OTEL_TRACES_EXPORTER !== 'none' &&
    (tracing.OTEL_TRACES_EXPORTER === 'otlp' || endpoint !== undefined || tracesEndpoint !== undefined);
  if (!on) return null;
  // The specification: the signal's endpoint is used as is; the base endpoint gets the signal's path.
  const tracesUrl = tracesEndpoint ?? `${(endpoint ?? DEFAULT_OTLP_ENDPOINT).replace(/\/+$/, '')}/v1/traces`;
  return { tracesUrl, serviceName: tracing.OTEL_SERVICE_NAME, sampler: { name: tracing.OTEL_TRACES_SAMPLER, ratio: tracing.OTEL_TRACES_SAMPLER_ARG } };
}

export interface PetsLifecycleConfig {
  deprecatedAt: Date;
  sunsetAt: Date;
}

export class ConfigError extends Error {
  constructor(readonly problems: readonly string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

/**
 * Parses and validates the whole configuration once, from the one schema in
 * config-schema.ts, and returns it deeply frozen. Every problem is collected
 * so that one start tells the operator everything that is wrong. Values that
 * may hold secrets (DATABASE_URL, the cursor keys, the webhook URL,
 * SMTP_URL) are never echoed.
 */
export function loadConfig(env: Env = process.env, cwd: string = process.cwd()): Config {
  const reading = readEnvironment(env);
  const problems = [...reading.problems, ...crossVariableProblems(reading)]
    // The quickstart host's URL is not read while the host is off.
    .filter(({ variable }) => !(variable === 'QUICKSTART_PUBLIC_URL' && reading.values.quickstart.QUICKSTART_PORT === 'off'))
    .map(({ problem }) => problem);
  if (problems.length > 0) throw new ConfigError(problems);
  return deepFreeze(assemble(reading.values, cwd));
}

/** Rules between variables; each only once both values were accepted on their own. */
function crossVariableProblems({ values, problems, given }: EnvironmentReading): { variable: string; problem: string }[] {
  const accepted = (...names: string[]) => names.every((name) => !problems.some((p) => p.variable === name));
  const found: { variable: string; problem: string }[] = [];
  const rule = (variable: string, broken: boolean, problem: string) => {
    if (broken) found.push({ variable, problem });
  };
  rule(
    'CURSOR_SECRET_PREVIOUS',
    given.has('CURSOR_SECRET_PREVIOUS') && !given.has('CURSOR_SECRET'),
    'CURSOR_SECRET_PREVIOUS needs CURSOR_SECRET (the key that signs new cursors)',
  );
  // Node refuses a headers timeout longer than the request timeout.
  rule(
    'REQUEST_TIMEOUT_MS',
    accepted('REQUEST_TIMEOUT_MS', 'HEADERS_TIMEOUT_MS') && values.limits.REQUEST_TIMEOUT_MS < values.limits.HEADERS_TIMEOUT_MS,
    'REQUEST_TIMEOUT_MS must not be less than HEADERS_TIMEOUT_MS',
  );
  const quickstartPort = values.quickstart.QUICKSTART_PORT;
  rule(
    'QUICKSTART_PORT',
    accepted('PORT', 'QUICKSTART_PORT') && quickstartPort !== 'off' && quickstartPort !== 0 && quickstartPort === values.server.PORT,
    `QUICKSTART_PORT must differ from PORT (both ${values.server.PORT}): the quickstart host listens beside the store host; give it its own port or QUICKSTART_PORT=off`,
  );
  const metricsPort = values.metrics.METRICS_PORT;
  rule(
    'METRICS_PORT',
    accepted('PORT', 'QUICKSTART_PORT', 'METRICS_PORT') && metricsPort !== 'off' && metricsPort !== 0 && (metricsPort === values.server.PORT || metricsPort === quickstartPort),
    `METRICS_PORT must differ from PORT and QUICKSTART_PORT (${metricsPort}): metrics are never served on a public host`,
  );
  const portalPort = values.portal.PORTAL_PORT;
  rule(
    'PORTAL_PORT',
    accepted('PORT', 'QUICKSTART_PORT', 'METRICS_PORT', 'PORTAL_PORT') &&
      portalPort !== 'off' &&
      portalPort !== 0 &&
      [values.server.PORT, quickstartPort, metricsPort].includes(portalPort),
    `PORTAL_PORT must differ from PORT, QUICKSTART_PORT and METRICS_PORT (${portalPort}); give the portal its own port or PORTAL_PORT=off`,
  );
  const perAddress = values.limits.MAX_CONNECTIONS_PER_ADDRESS;
  rule(
    'MAX_CONNECTIONS_PER_ADDRESS',
    accepted('MAX_CONNECTIONS_PER_ADDRESS', 'MAX_CONNECTIONS') && perAddress !== undefined && perAddress !== 0 && perAddress >= values.limits.MAX_CONNECTIONS,
    'MAX_CONNECTIONS_PER_ADDRESS must be less than MAX_CONNECTIONS (one address must not take the whole budget), or 0 for no bound',
  );
  rule(
    'MESSAGES_RETRY_MAX_MS',
    accepted('MESSAGES_RETRY_MAX_MS', 'MESSAGES_RETRY_BASE_MS') && values.messages.MESSAGES_RETRY_MAX_MS < values.messages.MESSAGES_RETRY_BASE_MS,
    'MESSAGES_RETRY_MAX_MS must not be less than MESSAGES_RETRY_BASE_MS',
  );
  rule(
    'PETS_SUNSET_DATE',
    accepted('PETS_SUNSET_DATE', 'PETS_DEPRECATION_DATE') &&
      checked(parseInstant(values.api.PETS_SUNSET_DATE)).getTime() < checked(parseInstant(values.api.PETS_DEPRECATION_DATE)).getTime(),
    'PETS_SUNSET_DATE must not be earlier than PETS_DEPRECATION_DATE (RFC 8594)',
  );
  return found;
}

/** The Config shape the rest of the program reads, from values the schema has accepted. */
function assemble({ server, database, api, quickstart, metrics, messages, limits, portal, audit, tracing, webhooks, mail, requestLogs }: EnvironmentValues, cwd: string): Config {
  const url = parseDatabaseUrl(database.DATABASE_URL);
  if (url.kind === 'invalid') throw new Error('DATABASE_URL was accepted by the schema but cannot be parsed.');
  const cursorSecret = api.CURSOR_SECRET;
  return {
    host: server.HOST,
    port: server.PORT,
    logLevel: server.LOG_LEVEL,
    environment: api.STORE_ENVIRONMENT,
    shutdownGraceMs: server.SHUTDOWN_GRACE_MS,
    database:
      url.kind === 'sqlite'
        ? { kind: 'sqlite', path: path.resolve(cwd, url.file), synchronous: database.SQLITE_SYNCHRONOUS }
        : { kind: 'postgres', url: database.DATABASE_URL, poolSize: database.DATABASE_POOL_SIZE },
    cursorSecrets: cursorSecret === undefined ? [] : [cursorSecret, ...api.CURSOR_SECRET_PREVIOUS],
    quickstart:
      quickstart.QUICKSTART_PORT === 'off'
        ? null
        : { port: quickstart.QUICKSTART_PORT, publicUrl: checked(parseBaseUrl(quickstart.QUICKSTART_PUBLIC_URL)) },
    metrics: metrics.METRICS_PORT === 'off' ? null : { host: metrics.METRICS_HOST, port: metrics.METRICS_PORT },
    messages: messagesFrom(messages),
    limits: limitsFrom(limits),
    tracing: tracingFrom(tracing),
    webhooks: webhooksFrom(webhooks),
    mail: mailFrom(mail),
    // Spec section 1: the base address carries the version prefix /v1; the v2 document's servers are the same URLs with /v2.
    ...(api.PUBLIC_BASE_URL === undefined ? {} : { publicBaseUrl: checked(parseVersionedBaseUrl(api.PUBLIC_BASE_URL)) }),
    ...(api.STAGING_BASE_URL === undefined ? {} : { stagingBaseUrl: checked(parseVersionedBaseUrl(api.STAGING_BASE_URL)) }),
    pets: { deprecatedAt: checked(parseInstant(api.PETS_DEPRECATION_DATE)), sunsetAt: checked(parseInstant(api.PETS_SUNSET_DATE)) },
    portal: portalFrom(portal),
    audit: { retentionDays: audit.AUDIT_RETENTION_DAYS, pruneIntervalMs: audit.AUDIT_PRUNE_INTERVAL_MS },
    events: { retentionDays: api.EVENTS_RETENTION_DAYS, pruneIntervalMs: api.EVENTS_PRUNE_INTERVAL_MS },
    requestLogs: {
      enabled: requestLogs.REQUEST_LOGS === 'on',
      retentionDays: requestLogs.REQUEST_LOG_RETENTION_DAYS,
      pruneIntervalMs: requestLogs.REQUEST_LOG_PRUNE_INTERVAL_MS,
      flushMs: requestLogs.REQUEST_LOG_FLUSH_MS,
    },
  };
}

/** A conversion of text the schema's refinement has already accepted with the same function. */
function checked<T>(value: T | undefined): T {
  if (value === undefined) throw new Error('A configuration value accepted by the schema did not convert.');
  return value;
}
