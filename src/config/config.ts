import { isIP } from 'node:net';
import path from 'node:path';
import { parseLimits, type Limits } from './limits.js';
import { normalizeDateTime } from '../shared/date-time.js';

export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
export type DeploymentEnvironment = 'production' | 'staging';

export type SqliteSynchronous = 'full' | 'normal';

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

export interface MessagesConfig {
  /** Where the dispatcher POSTs each queued message; absent: delivery is recording it as sent. May hold a secret: never logged. */
  readonly webhookUrl?: string;
  readonly webhookTimeoutMs: number;
  /** The first retry waits about this long; each further retry doubles it, up to retryMaxMs. */
  readonly retryBaseMs: number;
  readonly retryMaxMs: number;
  /** Delivery attempts before a message is given up as `failed`. */
  readonly maxAttempts: number;
  /** How often an idle dispatcher looks for due messages (new messages wake it at once). */
  readonly pollIntervalMs: number;
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
  readonly messages: MessagesConfig;
  /** Rate limits, timeouts, connection and load bounds (limits.ts). */
  readonly limits: Limits;
  /** Where clients reach the API (includes the /v1 prefix); the OpenAPI document's servers. */
  readonly publicBaseUrl: string;
  readonly stagingBaseUrl: string;
  /** The deprecated pet lookup's lifecycle: deprecated since, and gone from (sunset >= deprecation). */
  readonly pets: Readonly<PetsLifecycleConfig>;
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

const LOG_LEVELS: readonly LogLevel[] = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];
const ENVIRONMENTS: readonly DeploymentEnvironment[] = ['production', 'staging'];

export const DEFAULTS = {
  PORT: '3000',
  HOST: '127.0.0.1',
  DATABASE_URL: 'sqlite:./data/store.db',
  LOG_LEVEL: 'info',
  STORE_ENVIRONMENT: 'production',
  SHUTDOWN_GRACE_MS: '10000',
  DATABASE_POOL_SIZE: '10',
  SQLITE_SYNCHRONOUS: 'full',
  CURSOR_SECRET: '',
  CURSOR_SECRET_PREVIOUS: '',
  PUBLIC_BASE_URL: 'https://store.example.com/v1',
  STAGING_BASE_URL: 'https://staging.store.example.com/v1',
  PETS_DEPRECATION_DATE: '2026-07-01T00:00:00Z',
  PETS_SUNSET_DATE: '2027-07-01T00:00:00Z',
  QUICKSTART_PORT: '3001',
  QUICKSTART_PUBLIC_URL: 'https://quickstart.store.example.com',
  MESSAGES_WEBHOOK_URL: '',
  MESSAGES_WEBHOOK_TIMEOUT_MS: '10000',
  MESSAGES_RETRY_BASE_MS: '1000',
  MESSAGES_RETRY_MAX_MS: '300000',
  MESSAGES_MAX_ATTEMPTS: '10',
  MESSAGES_POLL_INTERVAL_MS: '1000',
} as const;

const SQLITE_SYNCHRONOUS_VALUES: readonly SqliteSynchronous[] = ['full', 'normal'];
export const DATABASE_POOL_SIZE_MAX = 1000;

/** 32 characters of a random string carry at least 128 bits even as hex. */
export const CURSOR_SECRET_MIN_LENGTH = 32;

type Env = Readonly<Record<string, string | undefined>>;

/**
 * Parses and validates the whole configuration once. Every problem is
 * collected so that one start tells the operator everything that is wrong.
 * Values that may hold secrets (DATABASE_URL) are never echoed.
 */
export function loadConfig(env: Env = process.env, cwd: string = process.cwd()): Config {
  const problems: string[] = [];
  const read = (name: keyof typeof DEFAULTS): string => {
    const value = env[name];
    return value === undefined || value.trim() === '' ? DEFAULTS[name] : value.trim();
  };

  const port = parseIntegerIn(read('PORT'), 0, 65535);
  if (port === undefined) problems.push(`PORT must be an integer from 0 to 65535 (got ${JSON.stringify(read('PORT'))})`);

  const host = read('HOST');
  if (!isValidHost(host)) problems.push(`HOST must be an IP address or a host name (got ${JSON.stringify(host)})`);

  const logLevel = read('LOG_LEVEL').toLowerCase() as LogLevel;
  if (!LOG_LEVELS.includes(logLevel)) problems.push(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')} (got ${JSON.stringify(logLevel)})`);

  const environment = read('STORE_ENVIRONMENT').toLowerCase() as DeploymentEnvironment;
  if (!ENVIRONMENTS.includes(environment)) {
    problems.push(`STORE_ENVIRONMENT must be one of ${ENVIRONMENTS.join(', ')} (got ${JSON.stringify(environment)})`);
  }

  const shutdownGraceMs = parseIntegerIn(read('SHUTDOWN_GRACE_MS'), 0, 600_000);
  if (shutdownGraceMs === undefined) problems.push('SHUTDOWN_GRACE_MS must be an integer number of milliseconds from 0 to 600000');

  const poolSize = parseIntegerIn(read('DATABASE_POOL_SIZE'), 1, DATABASE_POOL_SIZE_MAX);
  if (poolSize === undefined) {
    problems.push(`DATABASE_POOL_SIZE must be an integer from 1 to ${DATABASE_POOL_SIZE_MAX} (got ${JSON.stringify(read('DATABASE_POOL_SIZE'))})`);
  }

  const synchronous = read('SQLITE_SYNCHRONOUS').toLowerCase() as SqliteSynchronous;
  if (!SQLITE_SYNCHRONOUS_VALUES.includes(synchronous)) {
    problems.push(`SQLITE_SYNCHRONOUS must be one of ${SQLITE_SYNCHRONOUS_VALUES.join(', ')} (got ${JSON.stringify(read('SQLITE_SYNCHRONOUS'))})`);
  }

  const database = parseDatabaseUrl(read('DATABASE_URL'), cwd, { poolSize: poolSize ?? 1, synchronous });
  if (typeof database === 'string') problems.push(database);

  const cursorSecrets = parseCursorSecrets(read('CURSOR_SECRET'), read('CURSOR_SECRET_PREVIOUS'), problems);
  const quickstart = parseQuickstart(read('QUICKSTART_PORT'), read('QUICKSTART_PUBLIC_URL'), problems);
  const messages = parseMessages(read, problems);

  const limits = parseLimits(env, problems);

  // Spec section 1: the base address carries the version prefix /v1; the v2 document's servers are the same URLs with /v2.
  const publicBaseUrl = parseVersionedBaseUrl(read('PUBLIC_BASE_URL'));
  if (publicBaseUrl === undefined) problems.push('PUBLIC_BASE_URL must be an absolute http(s) URL ending in /v1, without query or fragment, e.g. https://store.example.com/v1');
  const stagingBaseUrl = parseVersionedBaseUrl(read('STAGING_BASE_URL'));
  if (stagingBaseUrl === undefined) problems.push('STAGING_BASE_URL must be an absolute http(s) URL ending in /v1, without query or fragment, e.g. https://staging.store.example.com/v1');

  const deprecatedAt = parseInstant(read('PETS_DEPRECATION_DATE'));
  if (deprecatedAt === undefined) problems.push('PETS_DEPRECATION_DATE must be an ISO 8601 date (2026-07-01) or date-time with a zone (2026-07-01T00:00:00Z)');
  const sunsetAt = parseInstant(read('PETS_SUNSET_DATE'));
  if (sunsetAt === undefined) problems.push('PETS_SUNSET_DATE must be an ISO 8601 date (2027-07-01) or date-time with a zone (2027-07-01T00:00:00Z)');
  if (deprecatedAt !== undefined && sunsetAt !== undefined && sunsetAt.getTime() < deprecatedAt.getTime()) {
    problems.push('PETS_SUNSET_DATE must not be earlier than PETS_DEPRECATION_DATE (RFC 8594)');
  }

  if (
    problems.length > 0 || port === undefined || shutdownGraceMs === undefined || typeof database === 'string' ||
    publicBaseUrl === undefined || stagingBaseUrl === undefined || deprecatedAt === undefined || sunsetAt === undefined
  ) {
    throw new ConfigError(problems);
  }
  return Object.freeze({
    host, port, logLevel, environment, shutdownGraceMs, database: Object.freeze(database),
    cursorSecrets: Object.freeze(cursorSecrets),
    quickstart,
    messages,
    limits,
    publicBaseUrl, stagingBaseUrl, pets: Object.freeze({ deprecatedAt, sunsetAt }),
  });
}

/** Secrets are checked for strength only and never echoed in a problem. */
function parseCursorSecrets(current: string, previous: string, problems: string[]): string[] {
  const previousList = previous === '' ? [] : previous.split(',').map((s) => s.trim());
  if (current === '' && previousList.length > 0) problems.push('CURSOR_SECRET_PREVIOUS needs CURSOR_SECRET (the key that signs new cursors)');
  const strong = (secret: string) => secret.length >= CURSOR_SECRET_MIN_LENGTH && /^[\x21-\x7e]+$/.test(secret);
  if (current !== '' && !strong(current)) {
    problems.push(`CURSOR_SECRET must be at least ${CURSOR_SECRET_MIN_LENGTH} printable characters without spaces, e.g. from: openssl rand -hex 32`);
  }
  if (!previousList.every(strong)) {
    problems.push(`CURSOR_SECRET_PREVIOUS must be a comma-separated list of secrets of at least ${CURSOR_SECRET_MIN_LENGTH} printable characters`);
  }
  return current === '' ? [] : [current, ...previousList];
}

/** A base URL (see parseBaseUrl) whose path ends in the version prefix /v1. */
function parseVersionedBaseUrl(text: string): string | undefined {
  const url = parseBaseUrl(text);
  return url?.endsWith('/v1') === true ? url : undefined;
}

/** An absolute http(s) URL, returned without a trailing slash (paths are appended to it). */
function parseBaseUrl(text: string): string | undefined {
  if (!URL.canParse(text)) return undefined;
  const url = new URL(text);
  if ((url.protocol !== 'https:' && url.protocol !== 'http:') || url.search !== '' || url.hash !== '' || url.username !== '' || url.password !== '') {
    return undefined;
  }
  return url.href.replace(/\/+$/, '');
}

/** A calendar date (midnight UTC) or an RFC 3339 date-time with an explicit zone. */
function parseInstant(text: string): Date | undefined {
  const normalized = normalizeDateTime(/^\d{4}-\d{2}-\d{2}$/.test(text) ? `${text}T00:00:00Z` : text);
  return normalized === undefined ? undefined : new Date(normalized);
}

function parseQuickstart(portText: string, publicUrlText: string, problems: string[]): QuickstartConfig | null {
  if (portText.toLowerCase() === 'off') return null;
  const port = parseIntegerIn(portText, 0, 65535);
  if (port === undefined) {
    problems.push(`QUICKSTART_PORT must be an integer from 0 to 65535 or "off" (got ${JSON.stringify(portText)})`);
    return null;
  }
  const publicUrl = parseBaseUrl(publicUrlText);
  if (publicUrl === undefined) {
    problems.push('QUICKSTART_PUBLIC_URL must be an absolute http(s) URL without query or fragment, e.g. https://quickstart.store.example.com');
  }
  return Object.freeze({ port, publicUrl: publicUrl ?? '' });
}

function parseMessages(read: (name: keyof typeof DEFAULTS) => string, problems: string[]): MessagesConfig {
  const integer = (name: keyof typeof DEFAULTS, min: number, max: number): number => {
    const value = parseIntegerIn(read(name), min, max);
    if (value === undefined) problems.push(`${name} must be an integer from ${min} to ${max}`);
    return value ?? min;
  };
  const webhookUrl = read('MESSAGES_WEBHOOK_URL');
  // The URL may carry a token, so the problem never quotes it.
  if (webhookUrl !== '' && !isHttpUrl(webhookUrl)) problems.push('MESSAGES_WEBHOOK_URL must be an absolute http:// or https:// URL');
  const retryBaseMs = integer('MESSAGES_RETRY_BASE_MS', 1, 3_600_000);
  const retryMaxMs = integer('MESSAGES_RETRY_MAX_MS', 1, 86_400_000);
  if (retryMaxMs < retryBaseMs) problems.push('MESSAGES_RETRY_MAX_MS must not be less than MESSAGES_RETRY_BASE_MS');
  return Object.freeze({
    ...(webhookUrl === '' ? {} : { webhookUrl }),
    webhookTimeoutMs: integer('MESSAGES_WEBHOOK_TIMEOUT_MS', 1, 600_000),
    retryBaseMs,
    retryMaxMs,
    maxAttempts: integer('MESSAGES_MAX_ATTEMPTS', 1, 1000),
    pollIntervalMs: integer('MESSAGES_POLL_INTERVAL_MS', 10, 3_600_000),
  });
}

function isHttpUrl(text: string): boolean {
  try {
    const url = new URL(text);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}

const HOST_NAME = /^(?=.{1,253}$)(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$/;

/** An IPv4/IPv6 address, or an RFC 1123 host name that is not a malformed dotted quad. */
function isValidHost(host: string): boolean {
  if (isIP(host) !== 0) return true;
  return HOST_NAME.test(host) && !/^[0-9.]+$/.test(host);
}

function parseIntegerIn(text: string, min: number, max: number): number | undefined {
  if (!/^[0-9]+$/.test(text)) return undefined;
  const value = Number(text);
  return value >= min && value <= max ? value : undefined;
}

/**
 * Returns the parsed database configuration, or a problem description. The
 * description never quotes a postgres URL: it may hold a password.
 */
function parseDatabaseUrl(
  url: string,
  cwd: string,
  { poolSize, synchronous }: { poolSize: number; synchronous: SqliteSynchronous },
): DatabaseConfig | string {
  if (url.startsWith('sqlite:')) {
    const rest = url.slice('sqlite:'.length);
    // sqlite:///abs/path is a URL with an empty authority; sqlite://x would silently mean /x.
    if (rest.startsWith('//') && !rest.startsWith('///')) {
      return 'DATABASE_URL must be sqlite:<path> or sqlite:///<absolute path> (sqlite://<name> is ambiguous)';
    }
    const file = rest.replace(/^\/\/(?=\/)/, '');
    if (file === '' || file.includes('\0')) return 'DATABASE_URL must name a file after "sqlite:", e.g. sqlite:./data/store.db';
    if (file === ':memory:') return 'DATABASE_URL sqlite::memory: is not supported: the CLI and the server must share one database file';
    return { kind: 'sqlite', path: path.resolve(cwd, file), synchronous };
  }
  const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):/.exec(url)?.[1];
  if (scheme !== undefined && /^postgres(ql)?$/i.test(scheme)) {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      return 'DATABASE_URL is not a valid postgres:// URL (the value is not shown because it may contain a password)';
    }
    if (parsed.hostname === '' && !parsed.searchParams.has('host')) {
      return 'DATABASE_URL must name a host, e.g. postgres://user:password@db.example:5432/store (the value is not shown)';
    }
    return { kind: 'postgres', url, poolSize };
  }
  return scheme === undefined
    ? 'DATABASE_URL must start with "sqlite:" or "postgres://" (e.g. sqlite:./data/store.db)'
    : `DATABASE_URL scheme "${scheme}:" is not supported; use sqlite:<path> or postgres://user:password@host:port/database`;
}
