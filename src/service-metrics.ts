import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { ApiKeysRepository } from './api-keys/api-keys-repository.js';
import type { MessageDelivery } from './messages/messages-delivery.js';
import type { OrdersRepository } from './orders/orders-repository.js';
import type { Storage } from './storage/storage.js';

/**
 * The service's own metrics, recorded at the composition root by wrapping
 * the collaborators it hands to the services: domain code stays free of
 * prom-client, and each observation is a counter step on a pre-created child.
 */
export interface ServiceMetrics {
  /** Group commits: batch sizes, and each cancel's result. */
  groupCommits(orders: Pick<OrdersRepository, 'changeStatusMany'>): Pick<OrdersRepository, 'changeStatusMany'>;
  /** API key lookups as requests make them (`cache`) and as they reach the database (`database`, the cache's misses). */
  keyLookups(repository: ApiKeysRepository, source: 'cache' | 'database'): ApiKeysRepository;
  /** Message delivery attempts by outcome. */
  deliveries(delivery: MessageDelivery): MessageDelivery;
  /** The database pool's connections in use and requests waiting for one (PostgreSQL only). */
  pool(storage: Pick<Storage, 'connections'>): void;
}

export function createServiceMetrics(registry: Registry): ServiceMetrics {
  const registers = [registry];
  const batchSizes = new Histogram({
    name: 'store_group_commit_batch_size',
    help: 'Status changes committed together in one transaction (group commit).',
    buckets: [1, 2, 4, 8, 16, 32, 64, 128, 256],
    registers,
  });
  const cancels = new Counter({ name: 'store_order_cancels_total', help: 'Cancels decided, by result.', labelNames: ['result'] as const, registers });
  const cancelResults = {
    cancelled: cancels.labels({ result: 'cancelled' }),
    not_found: cancels.labels({ result: 'not_found' }),
    not_pending: cancels.labels({ result: 'not_pending' }),
  };
  const lookups = new Counter({
    name: 'store_api_key_lookups_total',
    help: 'API key lookups: source="cache" every lookup a request makes, source="database" those the cache missed.',
    labelNames: ['source'] as const,
    registers,
  });
  const deliveries = new Counter({
    name: 'store_message_delivery_attempts_total',
    help: 'Message delivery attempts, by outcome (sent, failed: retried or given up).',
    labelNames: ['outcome'] as const,
    registers,
  });
  for (const result of Object.values(cancelResults)) result.inc(0);
  return {
    groupCommits: (orders) => ({
      async changeStatusMany(changes) {
        batchSizes.observe(changes.length);
        const results = await orders.changeStatusMany(changes);
        results.forEach((result, i) => {
          if (changes[i]?.to !== 'cancelled') return;
          (result.changed ? cancelResults.cancelled : result.current === undefined ? cancelResults.not_found : cancelResults.not_pending).inc();
        });
        return results;
      },
    }),
    keyLookups(repository, source) {
      const counted = lookups.labels({ source });
      counted.inc(0);
      return {
        ...repository,
        findActiveByHash(hash) {
          counted.inc();
          return repository.findActiveByHash(hash);
        },
      };
    },
    deliveries(delivery) {
      const sent = deliveries.labels({ outcome: 'sent' });
      const failed = deliveries.labels({ outcome: 'failed' });
      sent.inc(0);
      failed.inc(0);
      return {
        kind: delivery.kind,
        async deliver(message, signal) {
          let record;
          try {
            record = await delivery.deliver(message, signal);
          } catch (error) {
            failed.inc();
            throw error;
          }
          sent.inc();
          return record;
        },
      };
    },
    pool(storage) {
      if (storage.connections() === undefined) return;
      new Gauge({
        name: 'store_database_pool_connections',
        help: 'PostgreSQL pool: connections in use (state="in_use"), idle, and queries waiting for one (state="waiting").',
        labelNames: ['state'] as const,
        registers,
        collect() {
          const now = storage.connections() ?? { inUse: 0, idle: 0, waiting: 0 };
          this.set({ state: 'in_use' }, now.inUse);
          this.set({ state: 'idle' }, now.idle);
          this.set({ state: 'waiting' }, now.waiting);
        },
      });
    },
  };
}
