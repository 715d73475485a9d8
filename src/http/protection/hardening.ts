import underPressure from '@fastify/under-pressure';
import type { FastifyInstance } from 'fastify';
import type { ServerOptions } from 'node:http';
import { performance } from 'node:perf_hooks';
import type { Limits } from '../../config/limits.js';
import { AppError } from '../../errors/errors.js';
import { limitConnectionsPerAddress } from './connection-bounds.js';
import { enforceRateLimit, type RateLimiter } from './rate-limit.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** false: never rate limited (health probes must answer whoever asks, however often). */
    rateLimit?: boolean;
    /** false: never shed under load (liveness must not fail because the process is busy). */
    shed?: boolean;
  }
}

/** Node's own default, stated so the bound is ours: larger request headers get 431. */
const MAX_HEADER_BYTES = 16 * 1024;

/**
 * Server options that bound what one client can hold: a request must deliver
 * its headers within headersTimeoutMs and its whole body within
 * requestTimeoutMs, however slowly it dribbles bytes (Node checks every
 * connection on an interval, so a slow-loris client is cut off within about
 * one interval of its deadline).
 */
export function hardenedServerOptions(limits: Limits): {
  requestTimeout: number;
  keepAliveTimeout: number;
  http: ServerOptions;
  trustProxy?: string[];
} {
  return {
    ...(limits.trustProxy.length === 0 ? {} : { trustProxy: [...limits.trustProxy] }),
    requestTimeout: limits.requestTimeoutMs,
    keepAliveTimeout: limits.keepAliveTimeoutMs,
    http: {
      headersTimeout: limits.headersTimeoutMs,
      requestTimeout: limits.requestTimeoutMs,
      connectionsCheckingInterval: Math.max(50, Math.min(1000, Math.floor(limits.headersTimeoutMs / 4))),
      maxHeaderSize: MAX_HEADER_BYTES,
    },
  };
}

const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'x-content-type-options': 'nosniff',
  // JSON is never a document: nothing may load, frame or embed it.
  'content-security-policy': "default-src 'none'; frame-ancestors 'none'",
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
};

export const SECURITY_HEADER_ENTRIES = Object.entries(SECURITY_HEADERS);

/**
 * Installs the abuse bounds on one host: connection caps (per process and
 * per client address), load shedding (503
 * `overloaded` with Retry-After), per-address rate limiting of requests that
 * are not authenticated (authenticated ones are counted per key by
 * requireApiKey), and security headers on every response.
 */
export async function installHardening(app: FastifyInstance, { limits, rateLimiter }: { limits: Limits; rateLimiter: RateLimiter }): Promise<void> {
  app.server.maxConnections = limits.maxConnections;
  limitConnectionsPerAddress(app.server, {
    perAddress: limits.maxConnectionsPerAddress,
    trustProxy: limits.trustProxy,
    retryAfterSeconds: limits.loadShedding.retryAfterSeconds,
  });

  const shedding = limits.loadShedding;
  // The event-loop delay sampled before the host is ready, and in the
  // interval after, measures its start-up (schemas compiled, templates read:
  // seconds of blocked loop on a busy machine), not its load: a start-up
  // must not shed the first requests for being slow. Two intervals, as the
  // first sample after ready may still hold delay from before it.
  let delayCountsFrom = Number.POSITIVE_INFINITY;
  app.addHook('onReady', async () => {
    delayCountsFrom = performance.now() + 2 * shedding.sampleIntervalMs;
  });
  // under-pressure checks the delay first and stops there: while the delay is
  // ignored, the other bounds are checked here.
  const overOtherBounds = () => {
    const usage = app.memoryUsage();
    return (
      (shedding.maxHeapUsedBytes > 0 && usage.heapUsed > shedding.maxHeapUsedBytes) ||
      (shedding.maxEventLoopUtilization > 0 && usage.eventLoopUtilized > shedding.maxEventLoopUtilization)
    );
  };
  await app.register(underPressure, {
    maxEventLoopDelay: shedding.maxEventLoopDelayMs,
    maxEventLoopUtilization: shedding.maxEventLoopUtilization,
    // Per sample, not since start: a busy start-up must not shed the first requests.
    eventLoopUtilizationMode: 'interval',
    maxHeapUsedBytes: shedding.maxHeapUsedBytes,
    sampleInterval: shedding.sampleIntervalMs,
    retryAfter: shedding.retryAfterSeconds,
    pressureHandler: async (request, reply, type) => {
      if (request.routeOptions.config.shed === false) return;
      if (type === underPressure.TYPE_EVENT_LOOP_DELAY && performance.now() < delayCountsFrom && !overOtherBounds()) return;
      reply.header('connection', 'close');
      throw new AppError('overloaded', 'The server is overloaded; retry the request later.', {
        'retry-after': String(shedding.retryAfterSeconds),
      });
    },
  });

  app.addHook('onRequest', (request, reply, done) => {
    const config = request.routeOptions.config;
    // Protected routes count per key (or per address on a failed authentication) in requireApiKey.
    if (config.scope !== undefined || config.rateLimit === false) {
      done();
      return;
    }
    try {
      enforceRateLimit(rateLimiter, `ip:${request.ip}`, reply);
    } catch (error) {
      done(error as Error);
      return;
    }
    done();
  });

  app.addHook('onSend', (_request, reply, payload, done) => {
    for (const [name, value] of SECURITY_HEADER_ENTRIES) {
      if (!reply.hasHeader(name)) reply.header(name, value);
    }
    // Answers carry account data or say something about a key: no cache may
    // keep them. A route with its own caching (an ETag flow) sets the header itself.
    if (!reply.hasHeader('cache-control')) reply.header('cache-control', 'no-store');
    reply.removeHeader('x-powered-by');
    done(null, payload);
  });
}
