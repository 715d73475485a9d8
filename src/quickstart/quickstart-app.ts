import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import type { Services } from '../composition.js';
import { requireApiKey } from '../http/authentication.js';
import { createHttpApp } from '../http/http-app.js';
import { registerMessagesRoutes } from '../messages/messages-routes.js';
import { MESSAGES_BODY_LIMIT_BYTES } from '../messages/messages-schemas.js';

export interface QuickstartAppDependencies {
  logger: FastifyBaseLogger;
  services: Pick<Services, 'apiKeys' | 'messages'>;
}

/**
 * Builds the quickstart example host (spec section 4.3): only the messages
 * operations, with the store host's accounts, keys, error records, request
 * ids and logging. It never listens; server.ts does.
 */
export async function buildQuickstartApp({ logger, services }: QuickstartAppDependencies): Promise<FastifyInstance> {
  const app = createHttpApp({
    logger: logger.child({ host: 'quickstart' }),
    bodyLimit: MESSAGES_BODY_LIMIT_BYTES,
    // `message` must be a string as sent: no coercion of 42 to "42", and
    // unknown fields are refused rather than silently dropped.
    ajv: { coerceTypes: false, removeAdditional: false },
  });
  await app.register(async (scope) => {
    requireApiKey(scope, services.apiKeys);
    registerMessagesRoutes(scope, { messagesService: services.messages });
  });
  return app;
}
