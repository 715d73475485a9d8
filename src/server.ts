import closeWithGrace from 'close-with-grace';
import { buildApp } from './app.js';
import { createContainer } from './composition.js';
import type { Config } from './config/config.js';
import { createLogger } from './http/logging.js';

/**
 * Runs the store host until SIGTERM/SIGINT: migrates, listens, and on a
 * signal stops accepting, lets in-flight requests finish, closes the
 * database and exits 0 (1 if that takes longer than SHUTDOWN_GRACE_MS).
 * Logs go to stdout as JSON; the human greeting goes to stderr.
 */
export async function runServer(config: Config, stderr: NodeJS.WritableStream = process.stderr): Promise<void> {
  const logger = createLogger(config.logLevel);
  const container = createContainer(config);
  const migration = await container.storage.migrate();
  if (migration.applied.length > 0) logger.info({ applied: migration.applied }, 'database migrated');

  const app = await buildApp({ logger, services: container.services, storage: container.storage, limits: config.limits, config });

  let address: string;
  try {
    address = await app.listen({ host: config.host, port: config.port });
  } catch (error) {
    await app.close();
    await container.close();
    throw error;
  }
  container.services.keyUsage.start(config.limits.keyUsageFlushMs, (err) => logger.warn({ err }, 'could not record API key usage'));
  // Registered only once listening: close-with-grace also acts on a normal exit.
  closeWithGrace({ delay: config.shutdownGraceMs, logger }, async ({ signal, err }) => {
    if (err !== undefined) logger.error({ err }, 'shutting down after an unexpected error');
    else logger.info({ signal }, 'shutting down');
    await app.close();
    await container.close();
  });
  const fresh = (await container.services.accounts.listAccounts()).length === 0;
  stderr.write(greeting(address, fresh));
}

function greeting(address: string, freshDatabase: boolean): string {
  const lines = [`Store Orders listening on ${address} (API under ${address}/v1)`];
  if (freshDatabase) {
    lines.push(
      'The database has no accounts yet. Create one and an API key for it:',
      '  ./bin/store-orders accounts create --name "My Pet Store"',
      '  ./bin/store-orders keys create --account 1',
      `Then: curl -H "Authorization: Bearer <key>" ${address}/v1/store/orders`,
    );
  }
  return `${lines.join('\n')}\n`;
}
