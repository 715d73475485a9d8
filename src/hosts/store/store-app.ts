import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import type { Services } from '../../services.js';
import type { Config } from '../../config/config.js';
import { registerHealthRoutes } from '../../health/health-routes.js';
import { requireApiKey } from '../../api/http/authentication.js';
import { announceDeprecation } from '../../api/http/deprecation.js';
import { createFastLane } from '../../http/fast-lane.js';
import { clientAddressReader, installRequestLogCapture } from '../../http/request-log-capture.js';
import { registerRequestLogsRoutes } from '../../request-logs/request-logs-routes.js';
import { createHttpApp, type HttpAppOptions, type HttpTracing, type PreRouting } from '../../http/http-app.js';
import type { ListingCacheMetrics } from '../../orders/listing/listing-metrics.js';
import type { HttpMetrics } from '../../observability/http-metrics.js';
import type { RateLimiter } from '../../http/protection/rate-limit.js';
import { registerDocsPage } from '../../openapi/docs-page.js';
import { registerOpenApi, registerOpenApiRoute } from '../../openapi/openapi-document.js';
import { storeOpenApiOptions, storeV2OpenApiOptions, V2_DOCUMENT } from './store-openapi.js';
import { createListingResponses, type ListingResponses } from '../../orders/listing/listing-responses.js';
import { registerOrdersRoutes, V1_LISTING } from '../../orders/v1/orders-routes.js';
import { registerOrdersV2Routes } from '../../orders/v2/orders-v2-routes.js';
import { registerPlaceOrderRoute } from '../../orders/v2/orders-v2-place-routes.js';
import { registerAuditRoutes } from '../../audit/audit-routes.js';
import { registerEventsRoutes } from '../../events/events-routes.js';
import { registerWebhooksRoutes } from '../../webhooks/webhooks-routes.js';
import { PETS_DEPRECATION_DOCUMENTATION } from '../../pets/pets-schemas.js';
import { refuseAfterSunset, registerPetsRoutes } from '../../pets/pets-routes.js';
import type { OutageLog } from '../../shared/outage-log.js';
import type { Storage } from '../../storage/storage.js';

export interface AppDependencies {
  logger: FastifyBaseLogger;
  services: Services;
  storage: Pick<Storage, 'ping'>;
  /** The servers the OpenAPI document names, and the host's limits. */
  config: Pick<Config, 'publicBaseUrl' | 'stagingBaseUrl' | 'limits'>;
  /** Shared between hosts so that a key has one budget per process. */
  rateLimiter: RateLimiter;
  /** The process's HTTP metrics; this host's series carry `server="store"`. */
  httpMetrics: HttpMetrics;
  /** The listings cache's own counter (orders/listing/listing-metrics.ts). */
  listingMetrics: ListingCacheMetrics;
  /** The process's log of expected failures (one per process: an outage is one state). */
  outages: OutageLog;
  /** @fastify/otel while tracing is on, else null. With it, the v1 listing's fast lane answers only the requests that are not traced. */
  tracing: HttpTracing | null;
}

const V1_PREFIX = '/v1';

/** Request bodies are not used by v1; this bounds what a client can make us read. */
const BODY_LIMIT_BYTES = 1024 * 1024;

/**
 * Builds the store host: health probes, the /v1 API and the /v2 (beta) orders API, with the v1
 * listing's fast lane in front of Fastify's router. It never listens; server.ts does, and tests
 * inject requests.
 */
export async function buildApp(dependencies: AppDependencies): Promise<FastifyInstance> {
  const listings = createListingResponses(dependencies.services.orders, (hit) => dependencies.listingMetrics.lookup(hit));
  const app = await createHttpApp({
    ...storeHttpOptions(dependencies),
    preRouting: v1ListingLane(dependencies, listings),
  });
  await registerStoreRoutes(app, dependencies, listings);
  return app;
}

/** The store host's plumbing options (http/http-app.ts), before any pre-routing handler. */
export function storeHttpOptions({ logger, config, rateLimiter, httpMetrics, outages, tracing }: AppDependencies): HttpAppOptions {
  return { logger, bodyLimit: BODY_LIMIT_BYTES, limits: config.limits, rateLimiter, metrics: httpMetrics.host('store'), outages, tracing };
}

/** The fast lane of the v1 listing, answering from the same listings as its route. */
export function v1ListingLane({ logger, services, rateLimiter, config, tracing }: AppDependencies, listings: Pick<ListingResponses, 'openV1'>): PreRouting {
  return createFastLane({
    url: `${V1_PREFIX}${V1_LISTING.path}`,
    scope: V1_LISTING.scope,
    apiKeys: services.apiKeys,
    keyUsage: services.keyUsage,
    rateLimiter,
    logger,
    open: ({ accountId }) => listings.openV1(accountId),
    ...(services.requestLogRecorder.enabled
      ? { requestLogs: { recorder: services.requestLogRecorder, clientAddress: clientAddressReader(config.limits.trustProxy) } }
      : {}),
    ...(tracing === null ? {} : { sampling: tracing.sampling }),
  });
}

/** Every route of the store host, on `app` as createHttpApp built it; the listings serve v1 and v2 alike. */
export async function registerStoreRoutes(
  app: FastifyInstance,
  { services, storage, config, rateLimiter, outages }: AppDependencies,
  listings: ListingResponses,
): Promise<void> {
  // Before any route, so that its hooks see every request Fastify answers (the fast lane logs its own).
  if (services.requestLogRecorder.enabled) installRequestLogCapture(app, { recorder: services.requestLogRecorder, apiKeys: services.apiKeys });
  // Before any route: the generators collect routes as they are added. One
  // document per version prefix (spec section 1: servers carry the prefix).
  await registerOpenApi(app, storeOpenApiOptions(config));
  await registerOpenApi(app, storeV2OpenApiOptions(config));
  registerOpenApiRoute(app);
  registerOpenApiRoute(app, V2_DOCUMENT.path, V2_DOCUMENT.decorator);
  await registerDocsPage(app, {
    documents: [
      { name: 'v1', url: '/openapi.json' },
      { name: 'v2 (beta)', url: V2_DOCUMENT.path },
    ],
  });
  registerHealthRoutes(app, { storage, outages });
  await app.register(
    async (v1) => {
      requireApiKey(v1, services.apiKeys, { rateLimiter, keyUsage: services.keyUsage });
      registerOrdersRoutes(v1, { ordersService: services.orders, listings });
    },
    { prefix: V1_PREFIX },
  );
  await app.register(
    async (v2) => {
      requireApiKey(v2, services.apiKeys, { rateLimiter, keyUsage: services.keyUsage });
      registerOrdersV2Routes(v2, { ordersV2Service: services.ordersV2, listings });
      registerAuditRoutes(v2, { auditService: services.audit });
      registerEventsRoutes(v2, { eventsService: services.events });
      registerRequestLogsRoutes(v2, { requestLogsService: services.requestLogs });
    },
    { prefix: '/v2' },
  );
  await app.register(
    async (v2) => {
      requireApiKey(v2, services.apiKeys, { rateLimiter, keyUsage: services.keyUsage });
      await registerWebhooksRoutes(v2, { webhooksService: services.webhooks });
      await registerPlaceOrderRoute(v2, { ordersV2Service: services.ordersV2, idempotency: services.idempotency });
    },
    { prefix: '/v2' },
  );
  await app.register(
    async (pets) => {
      // Deprecation headers and the sunset refusal come before authentication,
      // so every response of the deprecated lookup carries them, 401 included.
      announceDeprecation(pets, { ...services.pets.lifecycle, documentation: PETS_DEPRECATION_DOCUMENTATION });
      refuseAfterSunset(pets, { petsService: services.pets });
      requireApiKey(pets, services.apiKeys, { rateLimiter, keyUsage: services.keyUsage });
      registerPetsRoutes(pets, { petsService: services.pets });
    },
    { prefix: V1_PREFIX },
  );
}
