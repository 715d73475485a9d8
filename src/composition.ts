import { createAccountsService } from './accounts/accounts-service.js';
import { cacheApiKeyLookups } from './api-keys/api-key-cache.js';
import { createApiKeysService } from './api-keys/api-keys-service.js';
import { createKeyUsageRecorder } from './api-keys/api-key-usage.js';
import type { Config } from './config/config.js';
import { createCursorCodec } from './orders/v2/orders-cursor.js';
import type { Logger } from 'pino';
import { createWebhookDelivery, recordOnlyDelivery } from './messages/messages-delivery.js';
import { createMessageDispatcher, type MessageDispatcher } from './messages/messages-dispatcher.js';
import { createMessagesService } from './messages/messages-service.js';
import { createVersionReads } from './orders/listing/version-reads.js';
import { createGroupedStatusChanges } from './orders/order-status-changes.js';
import { createOrdersService } from './orders/v1/orders-service.js';
import { createOrdersV2Service } from './orders/v2/orders-v2-service.js';
import { createPetsService } from './pets/pets-service.js';
import { systemClock, type Clock } from './shared/clock.js';
import { openStorage } from './storage/open-storage.js';
import type { Services } from './services.js';
import type { Storage } from './storage/storage.js';

export interface Container {
  readonly config: Config;
  readonly storage: Storage;
  readonly services: Services;
  close(): Promise<void>;
}

/**
 * Builds every service over one storage. The only place dependencies are
 * wired: the container below, and tests through test/support, both call it.
 */
export function createServices(
  storage: Storage,
  config: Pick<Config, 'environment' | 'cursorSecrets' | 'pets'>,
  clock: Clock,
): Services {
  // One group commit per storage: v1 and v2 cancels that arrive together share a commit.
  const changeStatus = createGroupedStatusChanges(storage.orders);
  // One batch of version reads per turn for every listing, v1 and v2.
  const readVersion = createVersionReads(storage.orders);
  return {
    accounts: createAccountsService({ accountsRepository: storage.accounts, clock }),
    apiKeys: createApiKeysService({
      apiKeysRepository: cacheApiKeyLookups(storage.apiKeys, clock),
      accountsRepository: storage.accounts,
      clock,
      environment: config.environment,
    }),
    keyUsage: createKeyUsageRecorder({ apiKeysRepository: storage.apiKeys, clock }),
    orders: createOrdersService({ ordersRepository: storage.orders, clock, changeStatus, readVersion }),
    ordersV2: createOrdersV2Service({
      ordersRepository: storage.orders,
      changeStatus,
      readVersion,
      cursors: createCursorCodec({ secrets: config.cursorSecrets, secretsRepository: storage.secrets, clock }),
      clock,
    }),
    pets: createPetsService({ petsRepository: storage.pets, clock, lifecycle: config.pets }),
    messages: createMessagesService({ messagesRepository: storage.messages, clock }),
  };
}

/** The composition root shared by the server and the CLI. */
export function createContainer(config: Config, { clock = systemClock }: { clock?: Clock } = {}): Container {
  const storage = openStorage(config.database);
  const services = createServices(storage, config, clock);
  return {
    config,
    storage,
    services,
    close: async () => {
      // Last-used times still in memory are written before the database closes.
      await services.keyUsage.stop().catch(() => undefined);
      await storage.close();
    },
  };
}

/**
 * The background dispatcher of quickstart messages over the container's
 * storage, woken whenever this process queues a message.
 */
export function createMessagesDispatcher(
  container: Pick<Container, 'config' | 'storage' | 'services'>,
  logger: Logger,
  clock: Clock = systemClock,
): MessageDispatcher {
  const { messages } = container.config;
  const dispatcher = createMessageDispatcher({
    messagesRepository: container.storage.messages,
    delivery:
      messages.webhookUrl === undefined
        ? recordOnlyDelivery
        : createWebhookDelivery({ url: messages.webhookUrl, timeoutMs: messages.webhookTimeoutMs }),
    clock,
    logger,
    config: messages,
  });
  container.services.messages.onQueued(() => dispatcher.wake());
  return dispatcher;
}
