import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TestContext } from 'node:test';
import type { FastifyInstance } from 'fastify';
import type { Account } from '../../src/accounts/accounts-repository.js';
import type { ApiKeyScope } from '../../src/api-keys/api-key-scopes.js';
import type { Services } from '../../src/services.js';
import type { Limits } from '../../src/config/limits.js';
import type { Config, QuickstartConfig } from '../../src/config/config.js';
import { createRateLimiter, type RateLimiter } from '../../src/http/protection/rate-limit.js';
import { buildQuickstartApp } from '../../src/hosts/quickstart/quickstart-app.js';
import type { Clock } from '../../src/shared/clock.js';
import type { Storage } from '../../src/storage/storage.js';
import { testConfig, testServices } from './container.js';
import type { TestBackend } from './storage.js';
import { capturingLogger } from './logs.js';
import { testHttpMetrics, testOutages } from './app.js';

export interface TestQuickstartApp {
  app: FastifyInstance;
  storage: Storage;
  services: Services;
  logs: string[];
  /** A new account and a key for it; the key holds every scope unless `scopes` says otherwise. */
  tenant(name?: string, scopes?: readonly ApiKeyScope[]): Promise<{ account: Account; key: string; auth: { authorization: string } }>;
}

/** A clock the test moves by hand. */
export function manualClock(start = new Date('2026-11-22T10:00:00.000Z')): Clock & { advance(ms: number): void } {
  let now = start.getTime();
  return { now: () => new Date(now), advance: (ms) => (now += ms) };
}

export async function createTenant(services: Services, name: string, scopes?: readonly ApiKeyScope[]) {
  const account = await services.accounts.createAccount({ name });
  const { secret } = await services.apiKeys.createKey({ accountId: account.id, ...(scopes === undefined ? {} : { scopes }) });
  return { account, key: secret, auth: { authorization: `Bearer ${secret}` } };
}

/**
 * The quickstart host over `storage` (a fresh database of `backend` when
 * absent) and `services` (new ones over that storage when absent), logs captured.
 */
export async function createTestQuickstartApp(
  t: TestContext,
  backend: TestBackend,
  {
    clock,
    storage: given,
    services: givenServices,
    limits,
    rateLimiter,
    config,
  }: {
    clock?: Clock;
    storage?: Storage;
    services?: Services;
    limits?: Limits;
    rateLimiter?: RateLimiter;
    config?: Pick<QuickstartConfig, 'publicUrl'>;
  } = {},
): Promise<TestQuickstartApp> {
  const storage = given ?? (await backend.freshDatabase(t)).storage;
  const services = givenServices ?? testServices(storage, clock === undefined ? {} : { clock });
  const { logger, logs } = capturingLogger();
  const base = testConfig();
  const hostLimits = limits ?? base.limits;
  const app = await buildQuickstartApp({
    logger,
    services,
    limits: hostLimits,
    rateLimiter: rateLimiter ?? createRateLimiter(hostLimits.rateLimit),
    config: config ?? quickstartConfigOf(base),
    httpMetrics: testHttpMetrics(),
    outages: testOutages(logger, storage),
    tracing: null,
  });
  t.after(() => app.close());
  let tenants = 0;
  return { app, storage, services, logs, tenant: (name = `Store ${++tenants}`, scopes) => createTenant(services, name, scopes) };
}

/** The quickstart part of a configuration that enables the quickstart host. */
function quickstartConfigOf(config: Config): QuickstartConfig {
  if (config.quickstart === null) throw new Error('the test configuration enables the quickstart host');
  return config.quickstart;
}

export interface ReceivedRequest {
  headers: IncomingMessage['headers'];
  body: string;
}

/**
 * A real HTTP webhook receiver on loopback (the far side of delivery is
 * outside our code). `respond` decides each answer: a status, or 'hang' to
 * never answer.
 */
/** A receiver's answer: a status, a status with headers (e.g. Retry-After), or no answer at all. */
export type ReceiverAnswer = number | 'hang' | { status: number; headers: Record<string, string> };

export async function startReceiver(
  t: TestContext,
  respond: (request: ReceivedRequest, index: number) => ReceiverAnswer,
  path = '/hooks/messages?token=s3cret',
): Promise<{ url: string; port: number; received: ReceivedRequest[]; next(count: number): Promise<ReceivedRequest[]> }> {
  const received: ReceivedRequest[] = [];
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
    url: `http://127.0.0.1:${port}${path}`,
    port,
    received,
    /** Resolves once `count` requests in all have arrived. */
    next(count) {
      if (received.length >= count) return Promise.resolve(received.slice(0, count));
      return new Promise((resolve) => waiters.push({ count, resolve: () => resolve(received.slice(0, count)) }));
    },
  };
}

/** Polls `check` until it returns a value other than undefined (the test's own timeout bounds the wait). */
export async function eventually<T>(check: () => Promise<T | undefined>, intervalMs = 10): Promise<T> {
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
