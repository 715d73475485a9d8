import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import Fastify, { type FastifyBaseLogger, type FastifyInstance, type FastifyPluginCallback } from 'fastify';
import type { Limits } from '../config/limits.js';
import { AppError } from '../errors/errors.js';
import { createErrorSender, installErrorHandling, type ErrorPresenter } from './error-handler.js';
import { hardenedServerOptions, installHardening } from './protection/hardening.js';
import type { RateLimiter } from './protection/rate-limit.js';
import { int64Keyword } from '../api/http/int64-parameter.js';
import { RequestLogLines, requestLineWriter } from './logging.js';
import { clientErrorWriter, installRawServerGuards } from './raw-responses.js';
import { recordRoute, type HostHttpMetrics } from '../observability/http-metrics.js';
import { requestIdFor } from './request-id.js';
import { oweResponse } from './protection/pipelining.js';
import { hostProblem, installBodyRule } from './protection/request-shape.js';
import { formatSchemaError } from '../api/http/validation-errors.js';
import type { OutageLog } from '../shared/outage-log.js';

export interface HttpAppOptions {
  logger: FastifyBaseLogger;
  /** The largest request body the host reads; larger ones get 413. */
  bodyLimit: number;
  /** Ajv options beyond the shared ones (verbose, for schema error messages). */
  ajv?: Record<string, unknown>;
  /** Timeouts, connection cap, load shedding and rate limits (config/limits.ts). */
  limits: Limits;
  /**
   * Counts requests per key and per unauthenticated client address. Hosts in
   * one process share one, so a key has one budget whichever host it calls.
   */
  rateLimiter: RateLimiter;
  /**
   * Sees each request before Fastify routes it, and either answers it or
   * hands it to Fastify (`fastify(req, res)`, at once or after async work).
   * Only requests Fastify would route normally get here: none while the
   * server is closing or shedding load, none without exactly one Host.
   */
  preRouting?: PreRouting;
  /** The host's HTTP metrics: every request is measured, whichever path (Fastify, pre-routing, Node's parser) answers it. */
  metrics: HostHttpMetrics;
  /** How refusals and failures are written: JSON Error records unless given (the portal writes HTML pages). */
  present?: ErrorPresenter;
  /** Where expected failures go (the database unreachable, clients gone) instead of a line with a stack per request. */
  outages: OutageLog;
  /** OpenTelemetry's Fastify instrumentation while tracing is on (server.ts), else null: then nothing of it runs. */
  tracing: HttpTracing | null;
}

/** What a host needs of tracing: @fastify/otel's plugin, registered before any hook or route, and the root sampling decision (observability/root-sampling.ts). */
export interface HttpTracing {
  plugin(): FastifyPluginCallback;
  readonly sampling: RootSampling;
}

/** Whether a request will be traced, decided once, so that a path in front of Fastify answers only requests that will not be. */
export interface RootSampling {
  /** Whether the request starts a sampled trace; undefined when it continues a caller's trace (its sampler decides, in Fastify). */
  decide(req: IncomingMessage): boolean | undefined;
  /** Runs `next` (handing the request to Fastify) with the decision carried to the sampler, which then takes it instead of deciding again. */
  carry(decision: boolean, next: () => void): void;
}

/**
 * A request handler in front of Fastify's: it answers and then calls
 * `answered` with the route it answered for (the host's metrics), or calls
 * `fastify` with the request untouched.
 */
export type PreRouting = (
  req: IncomingMessage,
  res: ServerResponse,
  fastify: (req: IncomingMessage, res: ServerResponse) => void,
  answered: (res: ServerResponse, route: string) => void,
) => void;

/**
 * The plumbing every host shares: request ids (header and log label), pino
 * logging, Error records for every failure (including Fastify's own and the
 * HTTP parser's), 404/405, 503 while closing, and the hardening (request and
 * headers timeouts, connection cap, load shedding, per-address rate limits of
 * unauthenticated routes, security headers). Routes are added by the caller;
 * each host (store, quickstart) is one of these.
 */
export async function createHttpApp({ logger, bodyLimit, ajv = {}, limits, rateLimiter, preRouting, metrics, present, outages, tracing }: HttpAppOptions): Promise<FastifyInstance> {
  const hardened = hardenedServerOptions(limits);
  // Node would answer a missing Host with a bare 400; onRequest answers with an Error record.
  const http = { ...hardened.http, requireHostHeader: false };
  let closing = false;
  // Requests a pre-routing handler must leave to Fastify, whose hooks answer them.
  const fastifyOnly = (req: IncomingMessage): boolean =>
    closing || app.isUnderPressure() || hostProblem(req) !== undefined;
  const sendError = createErrorSender(outages, present);
  const app = Fastify({
    ...hardened,
    loggerInstance: logger,
    genReqId: requestIdFor,
    logController: new RequestLogLines({ requestIdLogLabel: 'requestId' }, outages, requestLineWriter(logger)),
    bodyLimit,
    // Our own onRequest hook answers with an Error record while closing.
    return503OnClosing: false,
    schemaErrorFormatter: formatSchemaError,
    ajv: { customOptions: { verbose: true, ...ajv }, plugins: [int64Keyword] },
    frameworkErrors: (error, request, reply) => {
      sendError(request, reply, error);
    },
    clientErrorHandler: clientErrorWriter((status) => metrics.answeredRaw(status)),
    http,
    // The server Fastify would create (lib/server.js), with the bookkeeping
    // every request needs done inline in its one handler (no further
    // 'request' listener) and preRouting, if any, in front of Fastify's.
    serverFactory: (fastify: (req: IncomingMessage, res: ServerResponse) => void) => {
      const followed = (req: IncomingMessage, res: ServerResponse): void => {
        metrics.follow(res);
        fastify(req, res);
      };
      const answered = (res: ServerResponse, route: string): void => metrics.answered(res, route);
      const server = createServer(http, (req, res) => {
        oweResponse(req, res);
        metrics.begin(res);
        if (preRouting === undefined || fastifyOnly(req)) followed(req, res);
        else preRouting(req, res, followed, answered);
      });
      server.keepAliveTimeout = hardened.keepAliveTimeout;
      server.requestTimeout = hardened.requestTimeout;
      return server;
    },
  });
  if (tracing !== null) {
    // First, so that its server span (with the incoming traceparent) is active for every hook, handler and log line after it.
    await app.register(tracing.plugin());
  }
  installRawServerGuards(app.server, (status) => metrics.answeredRaw(status));

  app.addHook('preClose', async () => {
    closing = true;
  });
  // Hooks on every request take a callback rather than being async: no promise per request.
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id);
    recordRoute(request.raw, request.is404 ? undefined : request.routeOptions.url);
    const badHost = hostProblem(request.raw);
    if (badHost !== undefined) {
      done(new AppError('malformed_request', badHost));
      return;
    }
    if (closing) {
      reply.header('connection', 'close');
      done(new AppError('service_unavailable', 'The server is shutting down; retry the request.', { 'retry-after': '1' }));
      return;
    }
    done();
  });
  installBodyRule(app);

  installErrorHandling(app, sendError);
  await installHardening(app, { limits, rateLimiter });
  return app;
}
