import { createRequire } from 'node:module';
import { performance } from 'node:perf_hooks';
import type * as PromClient from 'prom-client';
import type { Registry } from 'prom-client';
import type { ClaimedItem, ClaimRequest, DeliveryQueue, Outcome } from '../delivery/delivery-queue.js';
import type { BreachedPasswordCheck } from '../users/breached-passwords.js';
import type { Clock } from '../shared/clock.js';
import type { ApiKeysRepository } from '../api-keys/api-keys-repository.js';
import type { MessageDelivery } from '../messages/messages-delivery.js';
import type { ChangeStatus } from '../orders/order-status-changes.js';
import type { OrdersRepository } from '../orders/orders-repository.js';
import type { Storage } from '../storage/storage.js';
import { SYSTEM_DISABLE_REASONS, type SystemDisableReason } from '../webhooks/notices/webhook-notices-repository.js';

/**
 * The service's own metrics, recorded at the composition root by wrapping
 * the collaborators it hands to the services: domain code stays free of
 * prom-client, and each observation is a counter step on a pre-created child.
 */
export interface ServiceMetrics {
  /** Group commits: batch sizes, and each cancel's result. */
  groupCommits(orders: Pick<OrdersRepository, 'changeStatusMany'>): Pick<OrdersRepository, 'changeStatusMany'>;
  /** `store_group_commit_wait_seconds`: how long each status change waits for its batch to commit. */
  groupCommitWaits(changeStatus: ChangeStatus): ChangeStatus;
  /** API key lookups as requests make them (`cache`) and as they reach the database (`database`, the cache's misses). */
  keyLookups(repository: ApiKeysRepository, source: 'cache' | 'database'): ApiKeysRepository;
  /** Message delivery attempts by outcome. */
  deliveries(delivery: MessageDelivery): MessageDelivery;
  /**
   * `store_deliveries_total`: the queue's settled attempts by outcome (sent,
   * failed and retried, given up); `store_delivery_lag_seconds`: each
   * claimed item's wait from due to claim (its attempt starts at once).
   */
  deliveryQueue<T extends ClaimedItem, Q extends DeliveryQueue<T>>(kind: DeliveryKind, queue: Q): Q;
  /** `store_delivery_oldest_undelivered_seconds`: how overdue each queue's oldest waiting item is, read at each scrape. */
  oldestUndelivered(queues: Record<DeliveryKind, Pick<DeliveryQueue<ClaimedItem>, 'oldestDueAt'>>, clock: Clock): void;
  /** The database pool's connections in use and requests waiting for one (PostgreSQL only). */
  pool(storage: Pick<Storage, 'connections'>): void;
  /** `store_database_up`: 1 while the database answers, 0 during an outage (set by the outage log). */
  databaseUp(): (up: boolean) => void;
  /** `store_webhook_endpoints_disabled_total`: endpoints this process's settlements disabled (Storage.onEndpointDisabled), by reason. */
  endpointDisabled(reason: SystemDisableReason): void;
  /** Counts each breached-password check by its result (store_breached_password_checks_total). */
  breachedPasswordChecks(check: BreachedPasswordCheck): BreachedPasswordCheck;
}

export type DeliveryKind = 'messages' | 'webhooks' | 'mail';
const DELIVERY_KINDS: readonly DeliveryKind[] = ['messages', 'webhooks', 'mail'];

const require = createRequire(import.meta.url);
/**
 * prom-client (CommonJS), required once metrics are made: a CLI command's
 * container has no registry and so never loads it (a tenth of its start-up).
 */
const promClient = (): typeof PromClient => require('prom-client') as typeof PromClient;

/**
 * A counter with one label whose values are known up front, counted in plain
 * numbers (a step is one addition, where prom-client's inc() builds a label
 * hash) and added to the prom-client counter at each scrape (its collect).
 */
function plainCounter<V extends string>(registry: Registry, { name, help, labelName, values }: { name: string; help: string; labelName: string; values: readonly V[] }): Record<V, number> {
  const counts = Object.fromEntries(values.map((value) => [value, 0])) as Record<V, number>;
  const exported = { ...counts };
  const { Counter } = promClient();
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

const BREACHED_HELP = 'New portal passwords checked against PORTAL_BREACHED_PASSWORDS_URL, by result (unavailable: no answer in time; the password was accepted).';
export function createServiceMetrics(registry: Registry): ServiceMetrics {
  const { Counter, Gauge, Histogram } = promClient();
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
  let breachedChecks: PromClient.Counter<'result'> | undefined;
  const deliveries = new Counter({
    name: 'store_message_delivery_attempts_total',
    help: 'Message delivery attempts, by outcome (sent, failed: retried or given up).',
    labelNames: ['outcome'] as const,
    registers,
  });
  const waits = new Histogram({
    name: 'store_group_commit_wait_seconds',
    help: 'Time a status change (a cancel) waits from its call until its batch is committed (group commit).',
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers,
  });
  const settled = new Counter({
    name: 'store_deliveries_total',
    help: 'Delivery attempts settled, by kind (messages, webhooks) and outcome (sent; failed: will be retried; given_up: dead-lettered).',
    labelNames: ['kind', 'outcome'] as const,
    registers,
  });
  // Both reasons exported from the start: an alert on an increase needs the zero.
  const disabledEndpoints = new Counter({
    name: 'store_webhook_endpoints_disabled_total',
    help: 'Webhook endpoints the service disabled, by reason (gone: the receiver answered 410; failing: every attempt failed for 5 days).',
    labelNames: ['reason'] as const,
    registers,
  });
  for (const reason of SYSTEM_DISABLE_REASONS) disabledEndpoints.labels({ reason }).inc(0);
  const lag = new Histogram({
    name: 'store_delivery_lag_seconds',
    help: 'Time from a delivery becoming due (queued, its retry time, or a lapsed claim) until an engine claims it for an attempt, by kind.',
    labelNames: ['kind'] as const,
    buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900, 3600],
    registers,
  });
  return {
    groupCommitWaits: (changeStatus) => async (change) => {
      const started = performance.now();
      try {
        return await changeStatus(change);
      } finally {
        waits.observe((performance.now() - started) / 1000);
      }
    },
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
    deliveryQueue<T extends ClaimedItem, Q extends DeliveryQueue<T>>(kind: DeliveryKind, queue: Q): Q {
      const counted = { sent: settled.labels({ kind, outcome: 'sent' }), failed: settled.labels({ kind, outcome: 'failed' }), given_up: settled.labels({ kind, outcome: 'given_up' }) };
      for (const child of Object.values(counted)) child.inc(0);
      const count = (outcome: Outcome) => counted[outcome.sent ? 'sent' : outcome.settlement.retryAt === undefined ? 'given_up' : 'failed'].inc();
      const { settleMany, settleAndClaim } = queue;
      const observeLag = (request: { now: string }, claimed: readonly ClaimedItem[]) => {
        const now = Date.parse(request.now);
        for (const item of claimed) lagOf.observe(Math.max(0, now - Date.parse(item.dueAt)) / 1000);
      };
      // Exposed from the start (empty buckets), so that rules and dashboards find the series.
      lag.zero({ kind });
      const lagOf = lag.labels({ kind });
      return {
        ...queue,
        async claimDue(request) {
          const claimed = await queue.claimDue(request);
          observeLag(request, claimed);
          return claimed;
        },
        async markSent(settlement) {
          count({ sent: true, settlement });
          return queue.markSent(settlement);
        },
        async markAttemptFailed(settlement) {
          count({ sent: false, settlement });
          return queue.markAttemptFailed(settlement);
        },
        ...(settleMany === undefined
          ? {}
          : {
              async settleMany(outcomes: readonly Outcome[]) {
                outcomes.forEach(count);
                return settleMany.call(queue, outcomes);
              },
            }),
        ...(settleAndClaim === undefined
          ? {}
          : {
              async settleAndClaim(outcomes: readonly Outcome[], request: ClaimRequest) {
                outcomes.forEach(count);
                const claimed = await settleAndClaim.call(queue, outcomes, request);
                observeLag(request, claimed);
                return claimed;
              },
            }),
      };
    },
    oldestUndelivered(queues, clock) {
      new Gauge({
        name: 'store_delivery_oldest_undelivered_seconds',
        help: 'How long the longest-waiting undelivered item has been due, by kind (0: nothing waiting). Read from the database at each scrape.',
        labelNames: ['kind'] as const,
        // Every worker reads the same database: the primary shows the value once, not summed.
        aggregator: 'max',
        registers,
        async collect() {
          await Promise.all(
            DELIVERY_KINDS.map(async (kind) => {
              // A failed read (an outage) leaves the last value; store_database_up says why.
              const due = await queues[kind].oldestDueAt().catch(() => null);
              if (due === null) return;
              this.set({ kind }, due === undefined ? 0 : Math.max(0, (clock.now().getTime() - Date.parse(due)) / 1000));
            }),
          );
        },
      });
    },
    endpointDisabled(reason) {
      disabledEndpoints.labels({ reason }).inc();
    },
    breachedPasswordChecks(check) {
      // One series for every check this registry counts (a second wrapped check adds to it).
      const results = (breachedChecks ??= new Counter({ name: 'store_breached_password_checks_total', help: BREACHED_HELP, labelNames: ['result'] as const, registers }));
      return async (password) => {
        const result = await check(password);
        results.labels({ result }).inc();
        return result;
      };
    },
    databaseUp() {
      const gauge = new Gauge({ name: 'store_database_up', help: 'Whether the database answers (1) or an outage is under way (0).', registers });
      gauge.set(1);
      return (up) => gauge.set(up ? 1 : 0);
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

/**
 * The service metrics of a process that serves none (METRICS_PORT=off, the
 * CLI, a cluster's primary): every collaborator is handed over as it is, so
 * nothing is counted into a registry nobody reads.
 */
export const UNCOUNTED_SERVICE_METRICS: ServiceMetrics = {
  groupCommits: (orders) => orders,
  groupCommitWaits: (changeStatus) => changeStatus,
  keyLookups: (repository) => repository,
  deliveries: (delivery) => delivery,
  deliveryQueue: (_kind, queue) => queue,
  oldestUndelivered: () => undefined,
  pool: () => undefined,
  databaseUp: () => () => undefined,
  endpointDisabled: () => undefined,
  breachedPasswordChecks: (check) => check,
};
