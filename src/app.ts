import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import type { Services } from './composition.js';
import { DEFAULT_LIMITS, type Limits } from './config/limits.js';
import { loadConfig, type Config } from './config/config.js';
import { registerHealthRoutes } from './health/health-routes.js';
import { requireApiKey } from './http/authentication.js';
import { announceDeprecation } from './http/deprecation.js';
import { createHttpApp } from './http/http-app.js';
import { createRateLimiter, type RateLimiter } from './http/rate-limit.js';
import { registerDocsPage } from './openapi/docs-page.js';
import { registerOpenApi, registerOpenApiRoute } from './openapi/openapi-document.js';
import { storeOpenApiOptions, storeV2OpenApiOptions, V2_DOCUMENT } from './openapi/store-openapi.js';
import { createListingLane } from './orders/orders-listing-lane.js';
import { registerOrdersRoutes } from './orders/orders-routes.js';
import { registerOrdersV2Routes } from './orders/orders-v2-routes.js';
import { PETS_DEPRECATION_DOCUMENTATION } from './pets/pets-schemas.js';
import { refuseAfterSunset, registerPetsRoutes } from './pets/pets-routes.js';
import type { Storage } from './storage/storage.js';

export interface AppDependencies {
  logger: FastifyBaseLogger;
  services: Services;
  storage: Pick<Storage, 'ping'>;
  /** Default: the documented defaults (config/limits.ts). */
  limits?: Limits;
  /** Share one between hosts so a key has one budget per process; default: a new one from `limits`. */
  rateLimiter?: RateLimiter;
  /** The servers the OpenAPI document names; the documented defaults when absent. */
  config?: Pick<Config, 'publicBaseUrl' | 'stagingBaseUrl'>;
  /**
   * false: the v1 listing is answered by its Fastify route only, never by the
   * fast lane in front of it (the tests compare the two). Default true.
   */
  listingLane?: boolean;
}

/** Request bodies are not used by v1; this bounds what a client can make us read. */
const BODY_LIMIT_BYTES = 1024 * 1024;

/**
 * Builds the store host: health probes, the /v1 API and the /v2 (beta) orders API. It never listens;
 * server.ts does, and tests inject requests.
 */
export async function buildApp({
  logger,
  services,
  storage,
  limits = DEFAULT_LIMITS,
  rateLimiter = createRateLimiter(limits.rateLimit),
  config,
  listingLane = true,
}: AppDependencies): Promise<FastifyInstance> {
  const preRouting = listingLane
    ? createListingLane({ apiKeys: services.apiKeys, keyUsage: services.keyUsage, rateLimiter, ordersService: services.orders, logger })
    : undefined;
  const app = await createHttpApp({ logger, bodyLimit: BODY_LIMIT_BYTES, limits, rateLimiter, ...(preRouting && { preRouting }) });
  // Before any route: the generators collect routes as they are added. One
  // document per version prefix (spec section 1: servers carry the prefix).
  const documented = config ?? loadConfig({});
  await registerOpenApi(app, storeOpenApiOptions(documented));
  await registerOpenApi(app, storeV2OpenApiOptions(documented));
  registerOpenApiRoute(app);
  registerOpenApiRoute(app, V2_DOCUMENT.path, V2_DOCUMENT.decorator);
  await registerDocsPage(app, {
    documents: [
      { name: 'v1', url: '/openapi.json' },
      { name: 'v2 (beta)', url: V2_DOCUMENT.path },
    ],
  });
  registerHealthRoutes(app, { storage });
  await app.register(
    async (v1) => {
      requireApiKey(v1, services.apiKeys, { rateLimiter, keyUsage: services.keyUsage });
      registerOrdersRoutes(v1, { ordersService: services.orders });
    },
    { prefix: '/v1' },
  );
  await app.register(
    async (v2) => {
      requireApiKey(v2, services.apiKeys, { rateLimiter, keyUsage: services.keyUsage });
      registerOrdersV2Routes(v2, { ordersV2Service: services.ordersV2 });
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
    { prefix: '/v1' },
  );
  return app;
}
