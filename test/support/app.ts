import type { TestContext } from 'node:test';
import type { FastifyInstance } from 'fastify';
import type { FastifyBaseLogger } from 'fastify';
import { buildApp, registerStoreRoutes, storeHttpOptions, v1ListingLane, type AppDependencies } from '../../src/hosts/store/store-app.js';
import type { Account } from '../../src/accounts/accounts-repository.js';
import type { Services } from '../../src/services.js';
import type { Config, DatabaseConfig, DeploymentEnvironment } from '../../src/config/config.js';
import type { Limits } from '../../src/config/limits.js';
import { createHttpApp } from '../../src/http/http-app.js';
import { createHttpMetrics, type HttpMetrics } from '../../src/observability/http-metrics.js';
import { createOutages } from '../../src/composition.js';
import { createMetricsRegistry } from '../../src/observability/metrics-registry.js';
import { createListingCacheMetrics, type ListingCacheMetrics } from '../../src/orders/listing/listing-metrics.js';
import { createServiceMetrics } from '../../src/observability/service-metrics.js';
import type { OutageLog } from '../../src/shared/outage-log.js';
import { createRateLimiter, type RateLimiter } from '../../src/http/protection/rate-limit.js';
import { createListingResponses, type ListingOptions, type ListingResponses } from '../../src/orders/listing/listing-responses.js';
import type { Clock } from '../../src/shared/clock.js';
import type { Storage } from '../../src/storage/storage.js';
import { testConfig, testServices } from './container.js';
import type { TestBackend } from './storage.js';
import { capturingLogger } from './logs.js';

/**
 * The store host as server.ts builds it, over `services`: the configuration
 * from testConfig() unless given, and a rate limiter of its own from the
 * configuration's limits unless given. Otherwise it is put together from the
 * very builders buildApp uses, with the test's own listing page sizes
 * (`listing`), its listings seen through `observe`, or (`fastLane: false`)
 * without the v1 listing's fast lane in front, for the test that compares
 * the lane with the route.
 */
export async function buildTestStoreApp({
  logger,
  services,
  storage,
  config = testConfig(),
  rateLimiter = createRateLimiter(config.limits.rateLimit),
  fastLane = true,
  listing,
  observe,
  httpMetrics = testHttpMetrics(),
  listingMetrics = createListingCacheMetrics(createMetricsRegistry({ clusterWorker: false })),
}: {
  logger: FastifyBaseLogger;
  services: Services;
  storage: Pick<Storage, 'ping'>;
  config?: AppDependencies['config'];
  rateLimiter?: RateLimiter;
  fastLane?: boolean;
  listing?: ListingOptions;
  observe?: (listings: ListingResponses) => ListingResponses;
  /** The process's HTTP metrics; a registry of the test's own when absent. */
  httpMetrics?: HttpMetrics;
  /** The listings cache's counter; in a registry of the test's own when absent. */
  listingMetrics?: ListingCacheMetrics;
}): Promise<FastifyInstance> {
  const dependencies: AppDependencies = { logger, services, storage, config, rateLimiter, httpMetrics, listingMetrics, outages: testOutages(logger, storage), tracing: null };
  if (fastLane && listing === undefined && observe === undefined) return buildApp(dependencies);
  const created = createListingResponses(services.orders, (hit) => listingMetrics.lookup(hit), listing);
  const listings = observe === undefined ? created : observe(created);
  const app = await createHttpApp({ ...storeHttpOptions(dependencies), ...(fastLane ? { preRouting: v1ListingLane(dependencies, listings) } : {}) });
  await registerStoreRoutes(app, dependencies, listings);
  return app;
}

/** The outage log as server.ts creates it, over `storage`, its gauge in a registry of its own. */
export function testOutages(logger: FastifyBaseLogger, storage: Pick<Storage, 'ping'>): OutageLog {
  return createOutages({ storage, metrics: createServiceMetrics(createMetricsRegistry({ clusterWorker: false })) }, logger);
}

/** HTTP metrics over a registry of their own, as server.ts creates them. */
export function testHttpMetrics(): HttpMetrics {
  return createHttpMetrics(createMetricsRegistry({ clusterWorker: false }));
}

export interface TestApp {
  app: FastifyInstance;
  storage: Storage;
  /** Where the test's fresh database lives. */
  database: DatabaseConfig;
  services: Services;
  /** Every log line the app wrote, as text. */
  logs: string[];
  /** Creates an account with a fresh key and returns both. */
  tenant(name?: string): Promise<{ account: Account; key: string; auth: { authorization: string } }>;
}

/** The store host over a fresh database of `backend`, with logs captured. */
export async function createTestApp(
  t: TestContext,
  backend: TestBackend,
  {
    environment = 'production' as DeploymentEnvironment,
    config,
    pets,
    clock,
    limits,
    logLevel,
  }: {
    environment?: DeploymentEnvironment;
    /** The OpenAPI servers; the documented defaults when absent. */
    config?: Pick<Config, 'publicBaseUrl' | 'stagingBaseUrl'>;
    /** The pet lookup's deprecation and sunset; the documented defaults when absent. */
    pets?: Config['pets'];
    clock?: Clock;
    limits?: Limits;
    /** The captured logger's level (every level when absent). */
    logLevel?: Parameters<typeof capturingLogger>[0];
  } = {},
): Promise<TestApp> {
  const { storage, config: database } = await backend.freshDatabase(t);
  const base = testConfig({ STORE_ENVIRONMENT: environment });
  const appConfig: Config = {
    ...base,
    ...config,
    ...(pets === undefined ? {} : { pets }),
    ...(limits === undefined ? {} : { limits }),
  };
  const services = testServices(storage, { config: appConfig, ...(clock === undefined ? {} : { clock }) });
  const { logger, logs } = capturingLogger(logLevel);
  const app = await buildTestStoreApp({ logger, services, storage, config: appConfig });
  t.after(() => app.close());
  let tenants = 0;
  return {
    app,
    storage,
    database,
    services,
    logs,
    async tenant(name = `Store ${++tenants}`) {
      const account = await services.accounts.createAccount({ name });
      const { secret } = await services.apiKeys.createKey({ accountId: account.id });
      return { account, key: secret, auth: { authorization: `Bearer ${secret}` } };
    },
  };
}

/** Asserts the spec's Error record shape with status equal to the HTTP status. */
export function errorBody(response: { statusCode: number; headers: Record<string, unknown>; body: string }): {
  code: string;
  message: string;
  status: number;
} {
  const contentType = String(response.headers['content-type']);
  if (!contentType.startsWith('application/json')) throw new Error(`expected JSON error, got ${contentType}`);
  const body = JSON.parse(response.body) as Record<string, unknown>;
  const keys = Object.keys(body).sort().join(',');
  if (keys !== 'code,message,status') throw new Error(`Error record must have exactly code, message, status; got ${keys}`);
  if (typeof body.code !== 'string' || typeof body.message !== 'string' || body.status !== response.statusCode) {
    throw new Error(`malformed Error record for HTTP ${response.statusCode}: ${response.body}`);
  }
  return body as { code: string; message: string; status: number };
}

/**
 * A signed cursor with one character of its signature changed. Not the last
 * characters: a cursor whose signature already ended in the replacement
 * came back unchanged (1 in 256 runs: seen under Node 24), and the last
 * base64url character of 16 bytes also holds bits that decoding ignores.
 */
export function tamperedCursor(cursor: string): string {
  const at = cursor.length - 5;
  return `${cursor.slice(0, at)}${cursor[at] === 'A' ? 'B' : 'A'}${cursor.slice(at + 1)}`;
}
