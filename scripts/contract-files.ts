import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import openapiTS, { astToString, type OpenAPI3 } from 'openapi-typescript';
import ts from 'typescript';
import { pino } from 'pino';
import { buildApp } from '../src/hosts/store/store-app.js';
import { buildQuickstartApp } from '../src/hosts/quickstart/quickstart-app.js';
import { createOutages, createServices } from '../src/composition.js';
import type { Services } from '../src/services.js';
import { loadConfig, type Config } from '../src/config/config.js';
import { createRateLimiter } from '../src/http/protection/rate-limit.js';
import { openApiJson } from '../src/openapi/openapi-document.js';
import { V2_DOCUMENT } from '../src/hosts/store/store-openapi.js';
import { systemClock } from '../src/shared/clock.js';
import { openStorage } from '../src/storage/open-storage.js';
import type { Storage } from '../src/storage/storage.js';
import type { FastifyInstance } from 'fastify';
import { UNCOUNTED_LISTING_CACHE } from '../src/orders/listing/listing-metrics.js';
import { createMetricsRegistry } from '../src/observability/metrics-registry.js';
import { createHttpMetrics, type HttpMetrics } from '../src/observability/http-metrics.js';
import { Registry } from 'prom-client';
import { createServiceMetrics } from '../src/observability/service-metrics.js';

/** Paths (from the repository root) of the generated, committed contract files. */
export const OPENAPI_FILE = 'openapi/openapi.json';
export const CLIENT_TYPES_FILE = 'packages/client/src/openapi-types.ts';
export const OPENAPI_V2_FILE = 'openapi/openapi-v2.json';
export const CLIENT_V2_TYPES_FILE = 'packages/client/src/openapi-v2-types.ts';
export const QUICKSTART_OPENAPI_FILE = 'openapi/quickstart-openapi.json';

/**
 * The servers the committed documents publish: the example production and
 * staging addresses. A server started without PUBLIC_BASE_URL names the
 * address it listens on instead; with these variables it serves exactly the
 * committed documents.
 */
export const PUBLISHED_SERVERS = {
  PUBLIC_BASE_URL: 'https://store.example.com/v1',
  STAGING_BASE_URL: 'https://staging.store.example.com/v1',
} as const;

/**
 * A host's OpenAPI documents as the code generates them (by the decorator
 * each is read through), over a throwaway database and with the documented
 * default configuration plus PUBLISHED_SERVERS, so that the committed files
 * do not depend on the environment of whoever ran it.
 */
async function generateDocuments<Name extends string>(
  build: (services: Services, storage: Storage, config: Config) => Promise<FastifyInstance>,
  decorators: Readonly<Record<Name, string>>,
): Promise<Record<Name, string>> {
  const config = loadConfig({ ...PUBLISHED_SERVERS });
  const dir = mkdtempSync(path.join(tmpdir(), 'store-orders-openapi-'));
  const storage = openStorage({ kind: 'sqlite', path: path.join(dir, 'store.db') });
  try {
    const app = await build(createServices(storage, config, systemClock, createServiceMetrics(new Registry())), storage, config);
    await app.ready();
    const texts = Object.fromEntries(Object.entries<string>(decorators).map(([name, decorator]) => [name, openApiJson(app, decorator)]));
    await app.close();
    return texts as Record<Name, string>;
  } finally {
    await storage.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The store host's documents: v1 (/openapi.json) and v2 beta (/v2/openapi.json). */
export function generateStoreOpenApiJson(): Promise<{ v1: string; v2: string }> {
  return generateDocuments(
    (services, storage, config) => {
      const logger = pino({ level: 'silent' });
      const outages = createOutages({ storage, metrics: createServiceMetrics(new Registry()) }, logger);
      return buildApp({ logger, services, storage, config, rateLimiter: createRateLimiter(config.limits.rateLimit), httpMetrics: unscrapedHttpMetrics(), listingMetrics: UNCOUNTED_LISTING_CACHE, outages, tracing: null });
    },
    { v1: 'swagger', v2: V2_DOCUMENT.decorator },
  );
}

/** The store host's v1 document. */
export async function generateOpenApiJson(): Promise<string> {
  return (await generateStoreOpenApiJson()).v1;
}

/** The store host's v2 (beta) document. */
export async function generateOpenApiV2Json(): Promise<string> {
  return (await generateStoreOpenApiJson()).v2;
}

/** The quickstart host's OpenAPI document. */
export async function generateQuickstartOpenApiJson(): Promise<string> {
  const { document } = await generateDocuments(
    (services, storage, config) => {
      if (config.quickstart === null) throw new Error('the default configuration enables the quickstart host');
      const logger = pino({ level: 'silent' });
      return buildQuickstartApp({
        logger,
        outages: createOutages({ storage, metrics: createServiceMetrics(new Registry()) }, logger),
        tracing: null,
        services,
        config: config.quickstart,
        limits: config.limits,
        rateLimiter: createRateLimiter(config.limits.rateLimit),
        httpMetrics: unscrapedHttpMetrics(),
      });
    },
    { document: 'swagger' },
  );
  return document;
}

const BIGINT = ts.factory.createKeywordTypeNode(ts.SyntaxKind.BigIntKeyword);

/**
 * TypeScript types for a document (openapi-typescript), with int64 fields
 * typed `bigint`: the client parses them exactly instead of rounding them
 * through a JS number.
 */
export async function generateClientTypes(openapiJson: string, file = OPENAPI_FILE): Promise<string> {
  const ast = await openapiTS(JSON.parse(openapiJson) as OpenAPI3, {
    transform: (schema) => (schema.format === 'int64' ? BIGINT : undefined),
  });
  return `// Generated by \`npm run openapi\` from ${file} with openapi-typescript. Do not edit.\n${astToString(ast)}`;
}

/** Every generated contract file, by path from the repository root. */
export async function generateContractFiles(): Promise<Record<string, string>> {
  const store = await generateStoreOpenApiJson();
  return {
    [OPENAPI_FILE]: store.v1,
    [CLIENT_TYPES_FILE]: await generateClientTypes(store.v1, OPENAPI_FILE),
    [OPENAPI_V2_FILE]: store.v2,
    [CLIENT_V2_TYPES_FILE]: await generateClientTypes(store.v2, OPENAPI_V2_FILE),
    [QUICKSTART_OPENAPI_FILE]: await generateQuickstartOpenApiJson(),
  };
}

/** HTTP metrics nobody scrapes: the documents are generated from a host that is never listened on. */
function unscrapedHttpMetrics(): HttpMetrics {
  return createHttpMetrics(createMetricsRegistry({ clusterWorker: false }));
}
