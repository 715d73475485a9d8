import type { TestContext } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.js';
import type { Account } from '../../src/accounts/accounts-repository.js';
import { createServices, type Services } from '../../src/composition.js';
import type { Config, DatabaseConfig, DeploymentEnvironment } from '../../src/config/config.js';
import type { Limits } from '../../src/config/limits.js';
import type { Clock } from '../../src/shared/clock.js';
import type { Storage } from '../../src/storage/storage.js';
import type { TestBackend } from './storage.js';
import { capturingLogger } from './logs.js';

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
  }: {
    environment?: DeploymentEnvironment;
    /** The OpenAPI servers; the documented defaults when absent. */
    config?: Pick<Config, 'publicBaseUrl' | 'stagingBaseUrl'>;
    /** The pet lookup's deprecation and sunset; the documented defaults when absent. */
    pets?: Config['pets'];
    clock?: Clock;
    limits?: Limits;
  } = {},
): Promise<TestApp> {
  const { storage, config: database } = await backend.freshDatabase(t);
  const services = createServices(storage, { environment, ...(pets === undefined ? {} : { pets }) }, clock);
  const { logger, logs } = capturingLogger();
  const app = await buildApp({
    logger,
    services,
    storage,
    ...(limits === undefined ? {} : { limits }),
    ...(config === undefined ? {} : { config }),
  });
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
