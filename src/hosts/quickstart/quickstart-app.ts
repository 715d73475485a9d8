import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import type { Services } from '../../services.js';
import type { Limits } from '../../config/limits.js';
import type { QuickstartConfig } from '../../config/config.js';
import { requireApiKey } from '../../api/http/authentication.js';
import { createHttpApp, type HttpTracing } from '../../http/http-app.js';
import type { HttpMetrics } from '../../observability/http-metrics.js';
import type { RateLimiter } from '../../http/protection/rate-limit.js';
import { registerMessagesRoutes } from '../../messages/messages-routes.js';
import { MESSAGES_BODY_LIMIT_BYTES } from '../../messages/messages-schemas.js';
import { registerOpenApi, registerOpenApiRoute } from '../../openapi/openapi-document.js';
import { quickstartOpenApiOptions } from './quickstart-openapi.js';
import type { OutageLog } from '../../shared/outage-log.js';

export interface QuickstartAppDependencies {
  logger: FastifyBaseLogger;
  services: Pick<Services, 'apiKeys' | 'keyUsage' | 'messages'>;
  /** The host's limits (timeouts, connection cap, load shedding, rate limits). */
  limits: Limits;
  /** The store host's, so that a key has one budget per process across both hosts. */
  rateLimiter: RateLimiter;
  /** The OpenAPI server URL. */
  config: Pick<QuickstartConfig, 'publicUrl'>;
  /** The process's HTTP metrics; this host's series carry `server="quickstart"`. */
  httpMetrics: HttpMetrics;
  /** The process's log of expected failures, shared with the store host. */
  outages: OutageLog;
  /** @fastify/otel while tracing is on, else null. */
  tracing: HttpTracing | null;
}

/**
 * Builds the quickstart example host (spec section 4.3): only the messages
 * operations, with the store host's accounts, keys, error records, request
 * ids, logging and hardening. It never listens; server.ts does.
 */
export async function buildQuickstartApp({
  logger,
  services,
  limits,
  rateLimiter,
  config,
  httpMetrics,
  outages,
  tracing,
}: QuickstartAppDependencies): Promise<FastifyInstance> {
  const app = await createHttpApp({
    logger: logger.child({ host: 'quickstart' }),
    bodyLimit: MESSAGES_BODY_LIMIT_BYTES,
    // `message` must be a string as sent: no coercion of 42 to "42", and
    // unknown fields are refused rather than silently dropped.
    ajv: { coerceTypes: false, removeAdditional: false },
    limits,
    rateLimiter,
    metrics: httpMetrics.host('quickstart'),
    outages,
    tracing,
  });
  // Before any route: the generator collects routes as they are added.
  await registerOpenApi(app, quickstartOpenApiOptions(config));
  registerOpenApiRoute(app);
  await app.register(async (scope) => {
    requireApiKey(scope, services.apiKeys, { rateLimiter, keyUsage: services.keyUsage });
    registerMessagesRoutes(scope, { messagesService: services.messages });
  });
  return app;
}
