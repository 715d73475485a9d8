import { testOutages } from '../support/app.js';
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
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
import { createTenant } from '../support/quickstart.js';

/** What a test receiver saw: the raw body, exactly as signed. */
export interface Delivered {
  headers: IncomingMessage['headers'];
  body: string;
}

export type Answer = number | 'hang' | { status: number; headers: Record<string, string> };

/** A real HTTP receiver on loopback; `respond` decides each answer. */
export async function startHookReceiver(t: TestContext, respond: (request: Delivered, index: number) => Answer = () => 204) {
  const received: Delivered[] = [];
  const waiters: { count: number; resolve: () => void }[] = [];
  const hanging: ServerResponse[] = [];
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const entry = { headers: request.headers, body: Buffer.concat(chunks).toString('utf8') };
      received.push(entry);
      const answer = respond(entry, received.length - 1);
      for (const waiter of waiters.filter((w) => received.length >= w.count)) waiter.resolve();
      if (answer === 'hang') {
        hanging.push(response);
        return;
      }
      const { status, headers } = typeof answer === 'number' ? { status: answer, headers: {} } : answer;
      response.writeHead(status, { 'content-type': 'text/plain', ...headers }).end('ok');
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  t.after(async () => {
    for (const response of hanging) response.destroy();
    server.closeAllConnections();
    server.close();
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    port,
    received,
    next(count: number): Promise<Delivered[]> {
      if (received.length >= count) return Promise.resolve(received.slice(0, count));
      return new Promise((resolve) => waiters.push({ count, resolve: () => resolve(received.slice(0, count)) }));
    },
  };
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
