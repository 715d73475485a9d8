import closeWithGrace from 'close-with-grace';
import type { FastifyInstance } from 'fastify';
import { buildApp } from './hosts/store/store-app.js';
import { createBackgroundWork, createContainer, createOutages } from './composition.js';
import { createMetricsRegistry } from './observability/metrics-registry.js';
import type { Config } from './config/config.js';
import { createHttpMetrics, UNCOUNTED_HTTP_METRICS } from './observability/http-metrics.js';
import { createListingCacheMetrics, UNCOUNTED_LISTING_CACHE } from './orders/listing/listing-metrics.js';
import { createSignInMetrics, UNCOUNTED_SIGN_INS } from './hosts/portal/portal-metrics.js';
import { bufferedStdoutDestination, createLogger, prettyDestination } from './http/logging.js';
import { startMetricsListener, type MetricsListener } from './observability/metrics-listener.js';
import { createRateLimiter } from './http/protection/rate-limit.js';
import { buildQuickstartApp } from './hosts/quickstart/quickstart-app.js';
import { buildPortalApp } from './hosts/portal/portal-app.js';
import { systemClock } from './shared/clock.js';
import { keepTickShapesAlive } from './shared/tick-shapes.js';
import { databaseAssignment } from './shared/shell-hint.js';
import { listenOn } from './server-listen.js';
import { createHostLoad } from './delivery/engine-pacing.js';
import { portalOrigin } from './hosts/portal/portal-origin.js';
import type { ProcessTracing } from './observability/process-tracing.js';

/**
 * Runs the store host, the quickstart host (unless QUICKSTART_PORT=off) and
 * the messages dispatcher until SIGTERM/SIGINT: migrates, listens, and on a
 * signal stops accepting, lets in-flight requests finish, stops the
 * dispatcher (queued messages stay queued for the next start), closes the
 * database and exits 0 (1 if that takes longer than SHUTDOWN_GRACE_MS).
 * Logs go to stdout: pretty, colored lines on a terminal, JSON otherwise;
 * the human greeting goes to stderr.
 */
export async function runServer(
  config: Config,
  stderr: NodeJS.WritableStream = process.stderr,
  {
    signals,
    clusterWorker = false,
    tracing,
  }: {
    signals?: readonly NodeJS.Signals[];
    clusterWorker?: boolean;
    /** Started by cli/main.ts before anything loads pg (observability/process-tracing.ts); undefined while tracing is off. */
    tracing?: ProcessTracing;
  } = {},
): Promise<Listening> {
  // A serving process (each --workers worker too) keeps nextTick on V8's fast path: shared/tick-shapes.ts.
  keepTickShapesAlive();
  // A person at a terminal reads the lines; anything else (a file, a pipe, a log shipper) parses JSON.
  const logger = createLogger(config.logLevel, process.stdout.isTTY === true ? prettyDestination() : bufferedStdoutDestination(), { traced: tracing !== undefined });
  const httpTracing = tracing?.http ?? null;
  // METRICS_PORT=off: nothing is measured at all (no registry, no listener per response), rather than recorded for nobody.
  const registry = config.metrics === null ? null : createMetricsRegistry({ clusterWorker });
  const httpMetrics = registry === null ? UNCOUNTED_HTTP_METRICS : createHttpMetrics(registry);
  const listingMetrics = registry === null ? UNCOUNTED_LISTING_CACHE : createListingCacheMetrics(registry);
  const signInMetrics = registry === null ? UNCOUNTED_SIGN_INS : createSignInMetrics(registry);
  const container = createContainer(config, { registry });
  const migration = await container.storage.migrate();
  if (migration.applied.length > 0) logger.info({ applied: migration.applied }, 'database migrated');

  // One rate limiter for both hosts: a key (or client address) has one budget per process.
  const { limits } = config;
  const rateLimiter = createRateLimiter(limits.rateLimit);
  const outages = createOutages(container, logger);
  const app = await buildApp({ logger, services: container.services, storage: container.storage, rateLimiter, config, httpMetrics, listingMetrics, outages, tracing: httpTracing });
  const quickstart: FastifyInstance | undefined =
    config.quickstart === null
      ? undefined
      : await buildQuickstartApp({ logger, services: container.services, limits, rateLimiter, config: config.quickstart, httpMetrics, outages, tracing: httpTracing });
  let address: string | undefined;
  const portal: FastifyInstance | undefined =
    config.portal.port === null
      ? undefined
      : await buildPortalApp({ logger, services: container.services, config, storeAddress: () => address, rateLimiter, httpMetrics, signInMetrics, clock: systemClock, outages, tracing: httpTracing });

  let quickstartAddress: string | undefined;
  let portalAddress: string | undefined;
  // A worker's metrics are scraped through the primary, which aggregates them.
  let metricsListener: MetricsListener | undefined;
  try {
    address = await listenOn(app, config.host, config.port, 'PORT');
    if (portal !== undefined && config.portal.port !== null) {
      await listenOn(portal, config.host, config.portal.port, 'PORTAL_PORT');
      portalAddress = portalOrigin(config.portal, config.host, portal.server);
    }
    if (quickstart !== undefined && config.quickstart !== null) {
      quickstartAddress = await listenOn(quickstart, config.host, config.quickstart.port, 'QUICKSTART_PORT');
    }
    if (registry !== null && config.metrics !== null && !clusterWorker) metricsListener = await startMetricsListener(registry, config.metrics.host, config.metrics.port);
  } catch (error) {
    await Promise.all([app.close(), quickstart?.close(), portal?.close()]);
    await container.close();
    throw error;
  }
  // Requests come first: while the store host is answering and the event
  // loop is nearly full, webhook delivery takes a bounded share of the
  // process (engine-pacing.ts).
  const hostLoad = createHostLoad();
  app.server.on('request', hostLoad.request);
  const background = createBackgroundWork(container, logger, outages, hostLoad.load);
  // Registered only once listening: close-with-grace also acts on a normal exit.
  const skip = signals === undefined ? [] : (['SIGINT', 'SIGTERM'] as const).filter((signal) => !signals.includes(signal));
  closeWithGrace({ delay: config.shutdownGraceMs, logger, skip }, async ({ signal, err }) => {
    if (err !== undefined) logger.error({ err }, 'shutting down after an unexpected error');
    else logger.info({ signal }, 'shutting down');
    await Promise.all([app.close(), quickstart?.close(), portal?.close(), metricsListener?.close()]);
    await background.stop();
    outages.stop();
    await container.close();
    // The spans of the last requests are exported before the process ends.
    await tracing?.shutdown().catch((error: unknown) => logger.warn({ err: error }, 'could not export the last spans'));
  });
  background.start();
  const listening: Listening = {
    address,
    ...(quickstartAddress === undefined ? {} : { quickstartAddress }),
    ...(portalAddress === undefined ? {} : { portalAddress }),
    ...(metricsListener === undefined ? {} : { metricsUrl: metricsListener.url }),
    freshDatabase: (await container.services.accounts.listAccounts()).length === 0,
    commandPrefix: databaseAssignment(config.database, process.cwd()),
  };
  stderr.write(greeting(listening));
  return listening;
}

/** Where a started server listens, for its greeting. */
export interface Listening {
  address: string;
  quickstartAddress?: string;
  /** The portal's public origin; absent when PORTAL_PORT=off. */
  portalAddress?: string;
  /** The Prometheus scrape URL; absent when METRICS_PORT=off (and in a cluster worker). */
  metricsUrl?: string;
  freshDatabase: boolean;
  /** What the greeting's commands need in front to reach this database from the shell that started it (shared/shell-hint.ts). */
  commandPrefix: string;
}

/** The human greeting on stderr; `workers` is said when more than one serve. */
export function greeting({ address, quickstartAddress, portalAddress, metricsUrl, freshDatabase, commandPrefix }: Listening, workers = 1): string {
  const lines = [
    `Store Orders listening on ${address} (API under ${address}/v1)${workers > 1 ? ` with ${workers} workers` : ''}`,
    `API documentation: ${address}/docs (try the operations there with an API key)`,
  ];
  if (quickstartAddress !== undefined) lines.push(`Quickstart host listening on ${quickstartAddress} (POST ${quickstartAddress}/messages)`);
  if (portalAddress !== undefined) lines.push(`Self-service portal at ${portalAddress} (sign up, API keys, orders)`);
  if (metricsUrl !== undefined) lines.push(`Prometheus metrics at ${metricsUrl}${workers > 1 ? ' (every worker, aggregated)' : ''}`);
  if (freshDatabase) {
    const how = portalAddress === undefined ? 'Create one and an API key for it:' : `Sign up in a browser at ${portalAddress}/sign-up, or create one and an API key from this shell:`;
    lines.push(
      `The database has no accounts yet. ${how}`,
      `  ${commandPrefix}./bin/store-orders accounts create --name "My Pet Store"`,
      `  ${commandPrefix}./bin/store-orders keys create --account 1`,
      `Then: curl -H "Authorization: Bearer <key>" ${address}/v1/store/orders`,
    );
  }
  return `${lines.join('\n')}\n`;
}
