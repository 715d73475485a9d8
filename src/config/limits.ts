import type { EnvironmentValues } from './config-schema.js';
import { deepFreeze } from './deep-freeze.js';
import { readEnvironment } from './env-reader.js';

/**
 * The bounds that keep the service answering under abuse: request rate,
 * time a client may take to send a request, concurrent connections, load
 * shedding, and how often key usage is written back. Read with the rest of
 * the configuration from the one schema (config-schema.ts, section Limits)
 * and frozen.
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
  /** Connections one client address (not a trusted proxy) holds at once; 0: no bound. */
  readonly maxConnectionsPerAddress: number;
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

/** The limits section of the environment (config-schema.ts) in the shape the HTTP layer reads. */
export function limitsFrom(values: EnvironmentValues['limits']): Limits {
  return {
    rateLimit: { requests: values.RATE_LIMIT_REQUESTS, windowSeconds: values.RATE_LIMIT_WINDOW_SECONDS },
    headersTimeoutMs: values.HEADERS_TIMEOUT_MS,
    requestTimeoutMs: values.REQUEST_TIMEOUT_MS,
    keepAliveTimeoutMs: values.KEEP_ALIVE_TIMEOUT_MS,
    maxConnections: values.MAX_CONNECTIONS,
    // Unset: an eighth of the process's budget, so one address never takes it all.
    maxConnectionsPerAddress: values.MAX_CONNECTIONS_PER_ADDRESS ?? Math.max(1, Math.floor(values.MAX_CONNECTIONS / 8)),
    loadShedding: {
      maxEventLoopDelayMs: values.LOAD_SHED_MAX_EVENT_LOOP_DELAY_MS,
      maxEventLoopUtilization: values.LOAD_SHED_MAX_EVENT_LOOP_UTILIZATION,
      maxHeapUsedBytes: values.LOAD_SHED_MAX_HEAP_MB * 1024 * 1024,
      // Fixed: not worth a variable (see docs/operations.md, Resource bounds).
      sampleIntervalMs: 1000,
      retryAfterSeconds: 5,
    },
    keyUsageFlushMs: values.KEY_USAGE_FLUSH_MS,
    trustProxy: values.TRUST_PROXY,
  };
}

/** The documented defaults, for hosts built without a configuration (tests). */
export const DEFAULT_LIMITS: Limits = deepFreeze(limitsFrom(readEnvironment({}).values.limits));
