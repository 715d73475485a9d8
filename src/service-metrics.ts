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

/**
 * A counter with one label whose values are known up front, counted in plain
 * numbers (a step is one addition, where prom-client's inc() builds a label
 * hash) and added to the prom-client counter at each scrape (its collect).
 */
function plainCounter<V extends string>(registry: Registry, { name, help, labelName, values }: { name: string; help: string; labelName: string; values: readonly V[] }): Record<V, number> {
  const counts = Object.fromEntries(values.map((value) => [value, 0])) as Record<V, number>;
  const exported = { ...counts };
  new Counter({
    name,
    help,
    labelNames: [labelName],
    registers: [registry],
    collect() {
      for (const value of values) {
        this.inc({ [labelName]: value }, counts[value] - exported[value]);
        exported[value] = counts[value];
      }
    },
  });
  return counts;
}

export function createServiceMetrics(registry: Registry): ServiceMetrics {
  const registers = [registry];
  const batchSizes = new Histogram({
    name: 'store_group_commit_batch_size',
    help: 'Status changes committed together in one transaction (group commit).',
    buckets: [1, 2, 4, 8, 16, 32, 64, 128, 256],
    registers,
  });
  // Counted per request (each cancel, each key lookup): plain numbers, added to their counters at each scrape.
  const cancelResults = plainCounter(registry, { name: 'store_order_cancels_total', help: 'Cancels decided, by result.', labelName: 'result', values: ['cancelled', 'not_found', 'not_pending'] });
  const lookups = plainCounter(registry, {
    name: 'store_api_key_lookups_total',
    help: 'API key lookups: source="cache" every lookup a request makes, source="database" those the cache missed.',
    labelName: 'source',
    values: ['cache', 'database'],
  });
  const deliveries = new Counter({
    name: 'store_message_delivery_attempts_total',
    help: 'Message delivery attempts, by outcome (sent, failed: retried or given up).',
    labelNames: ['outcome'] as const,
    registers,
  });
  return {
    groupCommits: (orders) => ({
      async changeStatusMany(changes) {
        batchSizes.observe(changes.length);
        const results = await orders.changeStatusMany(changes);
        results.forEach((result, i) => {
          if (changes[i]?.to !== 'cancelled') return;
          cancelResults[result.changed ? 'cancelled' : result.current === undefined ? 'not_found' : 'not_pending']++;
        });
        return results;
      },
    }),
    keyLookups(repository, source) {
      return {
        ...repository,
        findActiveByHash(hash) {
          lookups[source]++;
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
          try {
            await delivery.deliver(message, signal);
          } catch (error) {
            failed.inc();
            throw error;
          }
          sent.inc();
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
