import { testOutages } from '../support/app.js';
import type { TestContext } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { createWebhooksDispatcher } from '../../src/composition.js';
import type { Config, DatabaseConfig } from '../../src/config/config.js';
import type { Services } from '../../src/services.js';
import type { Clock } from '../../src/shared/clock.js';
import type { Storage } from '../../src/storage/storage.js';
import { buildTestStoreApp } from '../support/app.js';
import { testConfig, testServices } from '../support/container.js';
import { capturingLogger } from '../support/logs.js';
import type { TestBackend } from '../support/storage.js';
import { createTenant, startReceiver, type ReceivedRequest, type ReceiverAnswer } from '../support/quickstart.js';

/** What a test receiver saw: the raw body, exactly as signed. */
export type Delivered = ReceivedRequest;

export type Answer = ReceiverAnswer;

/** A real HTTP receiver on loopback (the quickstart tests' receiver, at /hooks); `respond` decides each answer. */
export function startHookReceiver(t: TestContext, respond: (request: Delivered, index: number) => Answer = () => 204) {
  return startReceiver(t, respond, '/hooks');
}

/** Loopback allowed (the receiver), http allowed, a short retry schedule. */
const LOOPBACK_ENV = {
  WEBHOOK_ALLOW_HTTP: 'true',
  WEBHOOK_ALLOWED_NETWORKS: '127.0.0.0/8',
  WEBHOOK_RETRY_SCHEDULE: '100ms,100ms,100ms',
  WEBHOOK_POLL_INTERVAL_MS: '20',
};

export interface WebhooksHarness {
  app: FastifyInstance;
  storage: Storage;
  services: Services;
  config: Config;
  /** The test's fresh database (config.database is the default one). */
  database: DatabaseConfig;
  logs: string[];
  tenant(name?: string): Promise<{ accountId: number; auth: { authorization: string } }>;
  /** Starts a delivery engine over `storage` (the harness's own by default), stopped when the test ends. */
  startEngine(options?: { storage?: Storage; clock?: Clock }): { wake(): void; stop(): Promise<void> };
}

/** The store host and services over a fresh database, configured by `env`. */
export async function webhooksHarness(t: TestContext, backend: TestBackend, env: Record<string, string> = LOOPBACK_ENV, clock?: Clock): Promise<WebhooksHarness> {
  const { storage, config: database } = await backend.freshDatabase(t);
  // Tests poll over HTTP: no rate limit.
  const config = testConfig({ RATE_LIMIT_REQUESTS: '0', ...env });
  const services = testServices(storage, { config, ...(clock === undefined ? {} : { clock }) });
  const { logger, logs } = capturingLogger();
  const app = await buildTestStoreApp({ logger, services, storage, config });
  t.after(() => app.close());
  let tenants = 0;
  return {
    app,
    storage,
    services,
    config,
    database,
    logs,
    async tenant(name = `Store ${++tenants}`) {
      const { account, auth } = await createTenant(services, name);
      return { accountId: account.id, auth };
    },
    startEngine({ storage: engineStorage = storage, clock: engineClock } = {}) {
      const engine = createWebhooksDispatcher({ config, storage: engineStorage, services }, logger, testOutages(logger, engineStorage), engineClock);
      engine.start();
      t.after(() => engine.stop());
      return engine;
    },
  };
}
