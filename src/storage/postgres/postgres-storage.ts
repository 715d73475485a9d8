import { fileURLToPath } from 'node:url';
import pg from 'pg';
import type { PostgresDatabaseConfig } from '../../config/config.js';
import { planMigrations, readMigrations } from '../migrations.js';
import type { MigrationReport, Storage } from '../storage.js';
import { createPostgresAccountsRepository } from './postgres-accounts-repository.js';
import { createPostgresApiKeysRepository } from './postgres-api-keys-repository.js';
import { toStorageError } from './postgres-errors.js';
import { createPostgresMessagesRepository } from './postgres-messages-repository.js';
import { createPostgresIdempotencyRepository } from './postgres-idempotency-repository.js';
import { createPostgresAuditRepository } from './postgres-audit-repository.js';
import { createPostgresPasskeysRepository } from './postgres-passkeys-repository.js';
import { createPostgresTwoStepRepository } from './postgres-two-step-repository.js';
import { createPostgresOrdersRepository } from './postgres-orders-repository.js';
import { createPostgresSecretsRepository } from './postgres-secrets-repository.js';
import { createPostgresPetsRepository } from './postgres-pets-repository.js';
import { createPostgresSessionsRepository } from './postgres-sessions-repository.js';
import { createPostgresTeamRepository } from './postgres-team-repository.js';
import { createPostgresAttemptThrottleRepository } from './postgres-attempt-throttle-repository.js';
import { createPostgresUsersRepository } from './postgres-users-repository.js';
import { createPostgresSignUpsRepository } from './postgres-sign-ups-repository.js';
import { createPostgresEventsRepository } from './postgres-events.js';
import {
  applyStatementTimeout,
  CONNECT_TIMEOUT_MS,
  createPostgresPool,
  STATEMENT_TIMEOUT_MS,
  types,
} from './postgres-pool.js';
import { createPostgresWebhooksRepository } from './postgres-webhooks-repository.js';
import { listenForDeliveries } from './postgres-notifications.js';
import { queuedDeliveries } from './postgres-events.js';
import { createDeliveriesQueued } from '../../delivery/deliveries-queued.js';
import { createEndpointsDisabled } from '../../webhooks/notices/endpoints-disabled.js';
import { createPostgresWebhookNoticesRepository, endpointsDisabledIn } from './postgres-webhook-notices-repository.js';
import { createPostgresMailRepository, queuedMail } from './postgres-mail-repository.js';
import { createPostgresRequestLogsRepository } from './postgres-request-logs-repository.js';
import { createPostgresUsageRepository } from './postgres-usage-repository.js';

const MIGRATIONS_DIR = fileURLToPath(new URL('../../../migrations/postgres/', import.meta.url));

/**
 * Serialises migrators across processes. An arbitrary constant: it only has
 * to differ from advisory lock keys other software uses in this database.
 */
const MIGRATION_LOCK_KEY = '126985637311075';

/**
 * Opens a pool on a PostgreSQL database. No connection is made until the
 * first query, so a server can start while the database is still coming up
 * (migrate() then fails with a 503-mapped error and the process exits).
 * `statementTimeoutMs` is for tests that need a slow statement cut off soon.
 */
export function openPostgresStorage(
  config: Pick<PostgresDatabaseConfig, 'url' | 'poolSize'>,
  { statementTimeoutMs = STATEMENT_TIMEOUT_MS }: { statementTimeoutMs?: number } = {},
): Storage {
  const deliveriesQueued = createDeliveriesQueued();
  const endpointsDisabled = createEndpointsDisabled();
  const mailQueued = createDeliveriesQueued();
  const { sql, transaction, connections, end } = createPostgresPool({
    ...config,
    statementTimeoutMs,
    afterCommit: (tx) => {
      if (queuedDeliveries(tx)) deliveriesQueued.announce();
      for (const reason of endpointsDisabledIn(tx)) endpointsDisabled.tell(reason);
      if (queuedMail(tx)) mailQueued.announce();
    },
  });
  let listening: { close(): Promise<void> } | undefined;

  let closed = false;
  return {
    kind: 'postgres',
    onDeliveriesQueued: deliveriesQueued.subscribe,
    onEndpointDisabled: endpointsDisabled.subscribe,
    onMailQueued: mailQueued.subscribe,
    watchOtherProcesses: async () => {
      if (listening !== undefined) return { watching: true, how: 'already listening' };
      const result = await listenForDeliveries(config.url, (text) => sql(text), () => deliveriesQueued.announce());
      if (result.watching) listening = result;
      return { watching: result.watching, how: result.how };
    },
    connections,
    accounts: createPostgresAccountsRepository(sql, transaction),
    apiKeys: createPostgresApiKeysRepository(sql),
    orders: createPostgresOrdersRepository(sql, transaction),
    secrets: createPostgresSecretsRepository(sql),
    pets: createPostgresPetsRepository(sql),
    users: createPostgresUsersRepository(sql, transaction),
    signUps: createPostgresSignUpsRepository(sql, transaction),
    sessions: createPostgresSessionsRepository(sql),
    team: createPostgresTeamRepository(sql, transaction),
    attemptThrottle: createPostgresAttemptThrottleRepository(sql),
    audit: createPostgresAuditRepository(sql),
    passkeys: createPostgresPasskeysRepository(sql),
    twoStep: createPostgresTwoStepRepository(sql, transaction),
    messages: createPostgresMessagesRepository(sql, transaction),
    idempotency: createPostgresIdempotencyRepository(sql),
    events: createPostgresEventsRepository(sql),
    webhooks: createPostgresWebhooksRepository(sql, transaction),
    webhookNotices: createPostgresWebhookNoticesRepository(sql),
    mail: createPostgresMailRepository(sql, transaction),
    requestLogs: createPostgresRequestLogsRepository(sql),
    usage: createPostgresUsageRepository(sql),
    migrate: async () => {
      // Its own connection, without the request timeouts: it may wait for
      // another process's migrations and a migration may run long.
      const client = new pg.Client({
        connectionString: config.url,
        connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
        application_name: 'store-orders migrate',
        types,
      });
      client.on('error', () => undefined);
      try {
        await client.connect();
        return await migratePostgres(client, statementTimeoutMs);
      } catch (error) {
        throw toStorageError(error);
      } finally {
        await client.end().catch(() => undefined);
      }
    },
    ping: async () => {
      await sql('SELECT 1');
    },
    close: async () => {
      if (closed) return;
      closed = true;
      await listening?.close();
      await end();
    },
  };
}

/**
 * Applies pending migrations in one transaction under a transaction-scoped
 * advisory lock: of several processes starting at once, one applies them and
 * the others wait for its commit, then find nothing left to do. It also
 * (re)applies the role's statement timeout in this database, which the
 * migration itself is exempt from.
 */
async function migratePostgres(client: pg.Client, statementTimeoutMs: number): Promise<MigrationReport> {
  const migrations = readMigrations(MIGRATIONS_DIR);
  await client.query('BEGIN; SET LOCAL statement_timeout = 0');
  try {
    await client.query('SELECT pg_advisory_xact_lock($1::bigint)', [MIGRATION_LOCK_KEY]);
    await client.query(`CREATE TABLE IF NOT EXISTS schema_migrations (
      version    integer     PRIMARY KEY,
      name       text        NOT NULL,
      applied_at timestamptz NOT NULL
    )`);
    const { rows } = await client.query<{ version: number }>('SELECT version FROM schema_migrations');
    const { pending, version } = planMigrations(migrations, rows.map((row) => row.version));
    for (const migration of pending) {
      await client.query(migration.sql);
      await client.query('INSERT INTO schema_migrations (version, name, applied_at) VALUES ($1, $2, $3)', [
        migration.version,
        migration.name,
        new Date().toISOString(),
      ]);
    }
    await applyStatementTimeout(client, statementTimeoutMs);
    await client.query('COMMIT');
    return { applied: pending.map((migration) => migration.name), version };
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  }
}
