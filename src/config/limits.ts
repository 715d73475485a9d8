/**
 * The bounds that keep the service answering under abuse: request rate,
 * time a client may take to send a request, concurrent connections, load
 * shedding, and how often key usage is written back. Parsed with the rest of
 * the configuration (config.ts) and frozen.
 */
export interface Limits {
  readonly rateLimit: {
    /** Requests one API key (or one client address, unauthenticated) may make per window. 0 turns rate limiting off. */
    readonly requests: number;
    readonly windowSeconds: number;
  };
  /** Time from the first byte to the end of the request headers (slow-loris bound). */
  readonly headersTimeoutMs: number;
  /** Time from the first byte to the end of the whole request, body included. */
  readonly requestTimeoutMs: number;
  /** How long an idle keep-alive connection stays open. */
  readonly keepAliveTimeoutMs: number;
  /** Connections one process holds at once; further ones are closed on accept. */
  readonly maxConnections: number;
  readonly loadShedding: {
    /** Mean event-loop delay above which requests get 503 (0: not checked). */
    readonly maxEventLoopDelayMs: number;
    /**
     * Event-loop utilisation (0..1) over the last sample above which requests
     * get 503 (0: not checked, the default: a CPU-bound but healthy process
     * runs near 1, so delay is the better saturation signal).
     */
    readonly maxEventLoopUtilization: number;
    /** Heap used above which requests get 503 (0: not checked). */
    readonly maxHeapUsedBytes: number;
    /** How often the process samples its own load. */
    readonly sampleIntervalMs: number;
    /** Seconds a shed client is told to wait (Retry-After). */
    readonly retryAfterSeconds: number;
  };
  /** How often the last-used time of API keys is written to the database. */
  readonly keyUsageFlushMs: number;
  /**
   * Proxies whose X-Forwarded-For is believed (addresses, CIDR ranges, or
   * loopback/linklocal/uniquelocal). Empty: the socket address is the client,
   * so a client cannot dodge per-address limits by sending the header.
   */
  readonly trustProxy: readonly string[];
}

export const LIMIT_DEFAULTS = {
  RATE_LIMIT_REQUESTS: '100',
  RATE_LIMIT_WINDOW_SECONDS: '60',
  HEADERS_TIMEOUT_MS: '10000',
  REQUEST_TIMEOUT_MS: '30000',
  KEEP_ALIVE_TIMEOUT_MS: '72000',
  MAX_CONNECTIONS: '1024',
  LOAD_SHED_MAX_EVENT_LOOP_DELAY_MS: '1000',
  LOAD_SHED_MAX_EVENT_LOOP_UTILIZATION: '0',
  LOAD_SHED_MAX_HEAP_MB: '0',
  KEY_USAGE_FLUSH_MS: '60000',
  TRUST_PROXY: '',
} as const;

type LimitName = keyof typeof LIMIT_DEFAULTS;
type Env = Readonly<Record<string, string | undefined>>;

/** Parses the limits, pushing one sentence per bad value onto `problems`. */
export function parseLimits(env: Env, problems: string[]): Limits {
  const read = (name: LimitName): string => {
    const value = env[name];
    return value === undefined || value.trim() === '' ? LIMIT_DEFAULTS[name] : value.trim();
  };
  const integer = (name: LimitName, min: number, max: number): number => {
    const text = read(name);
    const value = /^[0-9]+$/.test(text) ? Number(text) : NaN;
    if (Number.isSafeInteger(value) && value >= min && value <= max) return value;
    problems.push(`${name} must be an integer from ${min} to ${max} (got ${JSON.stringify(text)})`);
    return min;
  };
  const fraction = (name: LimitName): number => {
    const text = read(name);
    const value = /^(?:0|1|0?\.[0-9]+|1\.0*)$/.test(text) ? Number(text) : NaN;
    if (value >= 0 && value <= 1) return value;
    problems.push(`${name} must be a number from 0 to 1 (got ${JSON.stringify(text)})`);
    return 0;
  };

  const headersTimeoutMs = integer('HEADERS_TIMEOUT_MS', 100, 600_000);
  const requestTimeoutMs = integer('REQUEST_TIMEOUT_MS', 100, 3_600_000);
  // Node refuses a headers timeout longer than the request timeout.
  if (requestTimeoutMs < headersTimeoutMs) problems.push('REQUEST_TIMEOUT_MS must not be less than HEADERS_TIMEOUT_MS');
  return Object.freeze({
    rateLimit: Object.freeze({
      requests: integer('RATE_LIMIT_REQUESTS', 0, 1_000_000_000),
      windowSeconds: integer('RATE_LIMIT_WINDOW_SECONDS', 1, 86_400),
    }),
    headersTimeoutMs,
    requestTimeoutMs,
    keepAliveTimeoutMs: integer('KEEP_ALIVE_TIMEOUT_MS', 1, 3_600_000),
    maxConnections: integer('MAX_CONNECTIONS', 1, 1_000_000),
    loadShedding: Object.freeze({
      maxEventLoopDelayMs: integer('LOAD_SHED_MAX_EVENT_LOOP_DELAY_MS', 0, 600_000),
      maxEventLoopUtilization: fraction('LOAD_SHED_MAX_EVENT_LOOP_UTILIZATION'),
      maxHeapUsedBytes: integer('LOAD_SHED_MAX_HEAP_MB', 0, 1_000_000) * 1024 * 1024,
      sampleIntervalMs: 1000,
      retryAfterSeconds: 5,
    }),
    keyUsageFlushMs: integer('KEY_USAGE_FLUSH_MS', 100, 3_600_000),
    trustProxy: Object.freeze(parseTrustProxy(read('TRUST_PROXY'), problems)),
  });
}

function parseTrustProxy(text: string, problems: string[]): string[] {
  const entries = text.split(',').map((entry) => entry.trim()).filter((entry) => entry !== '');
  const bad = entries.find((entry) => !/^(?:loopback|linklocal|uniquelocal|[0-9A-Fa-f:.]+(?:\/[0-9]{1,3})?)$/.test(entry));
  if (bad !== undefined) {
    problems.push(`TRUST_PROXY must be a comma-separated list of proxy addresses or CIDR ranges (got ${JSON.stringify(bad)})`);
  }
  return entries;
}

/** The documented defaults, for hosts built without a configuration (tests). */
export const DEFAULT_LIMITS: Limits = parseLimits({}, []);
