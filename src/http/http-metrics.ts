import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';

/** The OpenTelemetry semantic conventions' buckets for `http.server.request.duration`, in seconds. */
const DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10];

/** The methods the conventions name; anything else is `_OTHER`, so a client cannot mint label values. */
const KNOWN_METHODS = new Set(['CONNECT', 'DELETE', 'GET', 'HEAD', 'OPTIONS', 'PATCH', 'POST', 'PUT', 'TRACE']);

/** The one `http_route` of every request no route matched (404s, parser errors): unknown paths add no series. */
const UNMATCHED_ROUTE = '_unmatched';

/** Where a request's route template and error code wait, on the raw request, until its response ends. */
const ROUTE = Symbol('http_route');
const ERROR_CODE = Symbol('error_code');
const STARTED = Symbol('started_at');
type Routed = IncomingMessage & { [ROUTE]?: string; [ERROR_CODE]?: string };

/** The refusals counted apart: a key or address over its rate limit, and load shedding. */
const REFUSALS = ['rate_limited', 'overloaded'] as const;

/** The hosts of a process, the `server` label of every HTTP series. */
export type HostName = 'store' | 'quickstart' | 'portal';

/** The HTTP metrics of one host: its requests are measured on its Node server, whichever path answers them. */
export interface HostHttpMetrics {
  /** Measures every request `server` emits, from its headers to the end of its response. */
  track(server: Server): void;
  /** Counts a response written straight to the socket (a parser error, CONNECT, 417), with no request object. */
  answeredRaw(status: number): void;
}

/** The HTTP metrics of a process, one registry, labelled by host. */
export interface HttpMetrics {
  host(name: HostName): HostHttpMetrics;
  /** A listing served from the listings cache (true) or built (false). */
  listingCache(hit: boolean): void;
}

/** Names the route template that answers `req`, for its duration series (the fast lane and Fastify's onRequest hook call it). */
export function recordRoute(req: IncomingMessage, route: string | undefined): void {
  (req as Routed)[ROUTE] = route;
}

/** Names the Error record code a request is answered with (the error handler calls it). */
export function recordErrorCode(req: IncomingMessage, code: string): void {
  (req as Routed)[ERROR_CODE] = code;
}

/**
 * `http_server_request_duration_seconds` and `http_server_active_requests`
 * (the OpenTelemetry HTTP server conventions) on `registry`. Each series
 * child is looked up once and kept: a request costs a map lookup, a
 * histogram observation and two additions.
 */
export function createHttpMetrics(registry: Registry): HttpMetrics {
  const duration = new Histogram({
    name: 'http_server_request_duration_seconds',
    help: 'Duration of HTTP server requests (OpenTelemetry http.server.request.duration).',
    labelNames: ['server', 'http_request_method', 'http_route', 'http_response_status_code'] as const,
    buckets: DURATION_BUCKETS,
    registers: [registry],
  });
  // Plain counts, read at scrape time: a request adds and subtracts a number, nothing more.
  const inFlight = new Map<HostName, { count: number }>();
  new Gauge({
    name: 'http_server_active_requests',
    help: 'HTTP server requests being processed (OpenTelemetry http.server.active_requests).',
    labelNames: ['server'] as const,
    registers: [registry],
    collect() {
      for (const [server, { count }] of inFlight) this.set({ server }, count);
    },
  });
  const refusals = new Counter({
    name: 'store_http_refusals_total',
    help: 'Requests refused by a rate limit (reason="rate_limited") or by load shedding (reason="overloaded").',
    labelNames: ['server', 'reason'] as const,
    registers: [registry],
  });
  const listings = new Counter({
    name: 'store_listing_cache_lookups_total',
    help: 'Order listings (v1 and v2 pages) served from the cache (result="hit") or built (result="miss").',
    labelNames: ['result'] as const,
    registers: [registry],
  });
  const hit = listings.labels({ result: 'hit' });
  const miss = listings.labels({ result: 'miss' });
  hit.inc(0);
  miss.inc(0);
  return {
    listingCache: (found) => (found ? hit : miss).inc(),
    host(server) {
      const refused = new Map(REFUSALS.map((reason) => [reason as string, refusals.labels({ server, reason })]));
      for (const counter of refused.values()) counter.inc(0);
      const active = inFlight.get(server) ?? { count: 0 };
      inFlight.set(server, active);
      const children = new Map<string, Histogram.Internal<'server' | 'http_request_method' | 'http_route' | 'http_response_status_code'>>();
      const observe = (method: string, route: string, status: number, seconds: number) => {
        const key = `${method} ${status} ${route}`;
        let child = children.get(key);
        if (child === undefined) {
          child = duration.labels({ server, http_request_method: method, http_route: route, http_response_status_code: String(status) });
          children.set(key, child);
        }
        child.observe(seconds);
      };
      return {
        track(node) {
          // One listener function for every response, with no closure per
          // request: the listing's fast path pays for whatever runs here.
          function recordClosed(this: ServerResponse & { [STARTED]?: number }): void {
            active.count--;
            // A client gone before any answer: no response, so no status to record.
            if (!this.headersSent) return;
            const req = this.req as Routed;
            const method = req.method !== undefined && KNOWN_METHODS.has(req.method) ? req.method : '_OTHER';
            observe(method, req[ROUTE] ?? UNMATCHED_ROUTE, this.statusCode, (performance.now() - (this[STARTED] ?? 0)) / 1000);
            const code = req[ERROR_CODE];
            if (code !== undefined) refused.get(code)?.inc();
          }
          // Before Fastify's own listener, so that even a synchronous answer is seen.
          node.prependListener('request', (_req: IncomingMessage, res: ServerResponse & { [STARTED]?: number }) => {
            res[STARTED] = performance.now();
            active.count++;
            res.on('close', recordClosed);
          });
        },
        answeredRaw(status) {
          // Nothing says when such a request began: its duration is recorded as zero.
          observe('_OTHER', UNMATCHED_ROUTE, status, 0);
        },
      };
    },
  };
}

/** The HTTP metrics of a process that serves none (METRICS_PORT=off): no listener per response, nothing recorded. */
export const UNCOUNTED_HTTP_METRICS: HttpMetrics = {
  host: () => ({ track: () => undefined, answeredRaw: () => undefined }),
  listingCache: () => undefined,
};
