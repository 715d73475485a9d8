import type { IncomingMessage, ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';

/** The OpenTelemetry semantic conventions' buckets for `http.server.request.duration`, in seconds. */
const DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10];

/** The methods the conventions name; anything else is `_OTHER`, so a client cannot mint label values. */
const KNOWN_METHODS = ['CONNECT', 'DELETE', 'GET', 'HEAD', 'OPTIONS', 'PATCH', 'POST', 'PUT', 'TRACE'];
const METHOD_INDEX = new Map(KNOWN_METHODS.map((method, i) => [method, i]));
const OTHER_METHOD = KNOWN_METHODS.length;

/** The one `http_route` of every request no route matched (404s, parser errors): unknown paths add no series. */
const UNMATCHED_ROUTE = '_unmatched';

/** Where a request's route template and error code wait, on the raw request, until its response ends. */
const ROUTE = Symbol('http_route');
const ERROR_CODE = Symbol('error_code');
const STARTED = Symbol('started_at');
type Routed = IncomingMessage & { [ROUTE]?: string; [ERROR_CODE]?: string };
type Timed = ServerResponse & { [STARTED]?: number };

/** The refusals counted apart: a key or address over its rate limit, and load shedding. */
const REFUSALS = ['rate_limited', 'overloaded'] as const;

/** The hosts of a process, the `server` label of every HTTP series. */
export type HostName = 'store' | 'quickstart' | 'portal';

/** The HTTP metrics of one host: every request its server emits is begun here and ends in exactly one of `follow` or `answered`. */
export interface HostHttpMetrics {
  /** A request has arrived (its headers): counted as active from now on. */
  begin(res: ServerResponse): void;
  /** Measures the response until it closes (whoever writes it). */
  follow(res: ServerResponse): void;
  /** The response to a request begun here was just written in full for `route`: measured now, with no listener. */
  answered(res: ServerResponse, route: string): void;
  /** Counts a response written straight to the socket (a parser error, CONNECT, 417), with no request object. */
  answeredRaw(status: number): void;
}

/** The HTTP metrics of a process, one registry, labelled by host. */
export interface HttpMetrics {
  host(name: HostName): HostHttpMetrics;
}

/** Names the route template that answers `req`, for its duration series (Fastify's onRequest hook calls it). */
export function recordRoute(req: IncomingMessage, route: string | undefined): void {
  (req as Routed)[ROUTE] = route;
}

/** Names the Error record code a request is answered with (the error handler calls it). */
export function recordErrorCode(req: IncomingMessage, code: string): void {
  (req as Routed)[ERROR_CODE] = code;
}

type DurationLabel = 'server' | 'http_request_method' | 'http_route' | 'http_response_status_code';

/** One duration series, its bucket counts kept here as plain numbers (not cumulative; the last is +Inf). */
interface Series {
  readonly labels: Readonly<Record<DurationLabel, string>>;
  readonly counts: number[];
  sum: number;
  count: number;
}

/** A value as prom-client's registry reads it from a histogram. */
interface ExportedValue {
  labels: Record<string, string | number>;
  sharedLabels: Record<string, string>;
  value: number;
  metricName: string;
}

/**
 * The duration histogram, its counts kept by `observe` below rather than by
 * prom-client's observe (which builds a label hash per observation: on the
 * listing's fast path that cost more than the rest of the metrics together).
 * prom-client 15 reads every metric at a scrape through getForPromString()
 * (its get(), for cluster aggregation, calls it too): that is what this
 * overrides, answering in prom-client's own shape.
 */
class KeptHistogram extends Histogram<DurationLabel> {
  readonly series: Series[] = [];

  constructor(
    private readonly metricName: string,
    private readonly metricHelp: string,
    registry: Registry,
  ) {
    super({ name: metricName, help: metricHelp, labelNames: ['server', 'http_request_method', 'http_route', 'http_response_status_code'], buckets: DURATION_BUCKETS, registers: [registry] });
  }

  /** A new series, exported from now on (at zero until observed). */
  add(labels: Series['labels']): Series {
    const series: Series = { labels, counts: new Array<number>(DURATION_BUCKETS.length + 1).fill(0), sum: 0, count: 0 };
    this.series.push(series);
    return series;
  }

  getForPromString(): Promise<{ name: string; help: string; type: 'histogram'; aggregator: 'sum'; values: ExportedValue[] }> {
    const values: ExportedValue[] = [];
    const bucket = `${this.metricName}_bucket`;
    for (const { labels, counts, sum, count } of this.series) {
      let cumulative = 0;
      DURATION_BUCKETS.forEach((le, i) => {
        cumulative += counts[i] ?? 0;
        values.push({ labels: { le }, sharedLabels: { ...labels }, value: cumulative, metricName: bucket });
      });
      values.push({ labels: { le: '+Inf' }, sharedLabels: { ...labels }, value: count, metricName: bucket });
      values.push({ labels: {}, sharedLabels: { ...labels }, value: sum, metricName: `${this.metricName}_sum` });
      values.push({ labels: {}, sharedLabels: { ...labels }, value: count, metricName: `${this.metricName}_count` });
    }
    return Promise.resolve({ name: this.metricName, help: this.metricHelp, type: 'histogram', aggregator: 'sum', values });
  }
}

function observe(series: Series, seconds: number): void {
  let i = 0;
  while (i < DURATION_BUCKETS.length && seconds > (DURATION_BUCKETS[i] ?? Infinity)) i++;
  series.counts[i] = (series.counts[i] ?? 0) + 1;
  series.sum += seconds;
  series.count++;
}

/**
 * `http_server_request_duration_seconds` and `http_server_active_requests`
 * (the OpenTelemetry HTTP server conventions) on `registry`. A request costs
 * two clock reads, two map lookups (route, then method and status) and a few
 * additions: no label hash, no closure, no listener when its answer is
 * written by the caller (`answered`).
 */
export function createHttpMetrics(registry: Registry): HttpMetrics {
  const duration = new KeptHistogram(
    'http_server_request_duration_seconds',
    'Duration of HTTP server requests (OpenTelemetry http.server.request.duration).',
    registry,
  );
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
  return {
    host(server) {
      const refused = new Map(REFUSALS.map((reason) => [reason as string, refusals.labels({ server, reason })]));
      for (const counter of refused.values()) counter.inc(0);
      const active = inFlight.get(server) ?? { count: 0 };
      inFlight.set(server, active);
      // By route, then by method and status (status × 16 + method): constant route strings, no key built per request.
      const byRoute = new Map<string, Map<number, Series>>();
      const seriesOf = (method: number, route: string, status: number): Series => {
        let routes = byRoute.get(route);
        if (routes === undefined) {
          routes = new Map();
          byRoute.set(route, routes);
        }
        const key = status * 16 + method;
        let series = routes.get(key);
        if (series === undefined) {
          series = duration.add({ server, http_request_method: KNOWN_METHODS[method] ?? '_OTHER', http_route: route, http_response_status_code: String(status) });
          routes.set(key, series);
        }
        return series;
      };
      const methodOf = (req: IncomingMessage): number => (req.method === undefined ? OTHER_METHOD : (METHOD_INDEX.get(req.method) ?? OTHER_METHOD));
      const elapsed = (res: Timed): number => (performance.now() - (res[STARTED] ?? 0)) / 1000;

      // One listener function for every followed response, with no closure per request.
      function recordClosed(this: Timed): void {
        active.count--;
        // A client gone before any answer: no response, so no status to record.
        if (!this.headersSent) return;
        const req = this.req as Routed;
        observe(seriesOf(methodOf(req), req[ROUTE] ?? UNMATCHED_ROUTE, this.statusCode), elapsed(this));
        const code = req[ERROR_CODE];
        if (code !== undefined) refused.get(code)?.inc();
      }
      return {
        begin(res: Timed) {
          res[STARTED] = performance.now();
          active.count++;
        },
        follow(res) {
          res.on('close', recordClosed);
        },
        answered(res: Timed, route) {
          active.count--;
          observe(seriesOf(methodOf(res.req), route, res.statusCode), elapsed(res));
        },
        answeredRaw(status) {
          // Nothing says when such a request began: its duration is recorded as zero.
          observe(seriesOf(OTHER_METHOD, UNMATCHED_ROUTE, status), 0);
        },
      };
    },
  };
}

/** The HTTP metrics of a process that serves none (METRICS_PORT=off): no listener per response, no clock read, nothing recorded. */
export const UNCOUNTED_HTTP_METRICS: HttpMetrics = {
  host: () => ({ begin: () => undefined, follow: () => undefined, answered: () => undefined, answeredRaw: () => undefined }),
};
