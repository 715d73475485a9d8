import type { Context, Link } from '@opentelemetry/api';
import type { Sender } from '../delivery/delivery-engine.js';
import type { MessageDelivery } from '../messages/messages-delivery.js';
import type { ChangeStatus } from '../orders/order-status-changes.js';
import type { OrdersRepository, StatusChange } from '../orders/orders-repository.js';
import { inSpan, openTelemetry } from '../shared/tracing.js';
import type { Storage } from '../storage/storage.js';
import type { ClaimedWebhookDelivery } from '../webhooks/webhooks-repository.js';

/**
 * Spans around what the services ask of storage, wired by the composition
 * root only while tracing is on (like service-metrics.ts, so domain code
 * never sees OpenTelemetry, and nothing of this runs when tracing is off):
 * one span per repository call, that is per transaction or statement group
 * (`orders.importOrders` covers a whole import), named `<repository>.<method>`,
 * with the PostgreSQL instrumentation's query spans beneath; and one `group
 * commit` span per batch of status changes.
 */
export interface ServiceTracing {
  /** The storage whose repositories' calls are spans; `orders.changeStatusMany` is the group commit's. */
  storage(storage: Storage): Storage;
  /** Remembers each change's caller, so that its group commit is the child of the first and links the others. */
  changeStatus(changeStatus: ChangeStatus): ChangeStatus;
}

/** Our repositories: every object-valued member of Storage (kind, migrate, ping, close… stay as they are). */
function isRepository(value: unknown): value is object {
  return typeof value === 'object' && value !== null;
}

function tracedRepository<R extends object>(name: string, repository: R, system: string, overrides: Partial<R> = {}): R {
  const wrapped = new Map<PropertyKey, unknown>();
  return new Proxy(repository, {
    get(target, property, receiver) {
      if (property in overrides) return overrides[property as keyof R];
      const value: unknown = Reflect.get(target, property, receiver);
      if (typeof value !== 'function') return value;
      let traced = wrapped.get(property);
      if (traced === undefined) {
        const spanName = `${name}.${String(property)}`;
        traced = (...args: unknown[]) => inSpan(spanName, { attributes: { 'db.system.name': system } }, () => Reflect.apply(value, target, args) as unknown);
        wrapped.set(property, traced);
      }
      return traced;
    },
  });
}

export function createServiceTracing(kind: Storage['kind']): ServiceTracing {
  const { context, trace } = openTelemetry();
  const system = kind === 'postgres' ? 'postgresql' : 'sqlite';
  // Each change's caller's context, until its batch runs (the batcher hands the very same objects to changeStatusMany).
  const callers = new WeakMap<StatusChange, Context>();

  function groupCommit(orders: OrdersRepository): Pick<OrdersRepository, 'changeStatusMany'> {
    return {
      changeStatusMany(changes) {
        const contexts = changes.map((change) => callers.get(change)).filter((found) => found !== undefined);
        const links: Link[] = [];
        for (const caller of contexts.slice(1)) {
          const spanContext = trace.getSpanContext(caller);
          if (spanContext !== undefined) links.push({ context: spanContext });
        }
        const attributes = { 'db.system.name': system, 'store.group_commit.size': changes.length };
        return context.with(contexts[0] ?? context.active(), () => inSpan('group commit', { attributes, links }, () => orders.changeStatusMany(changes)));
      },
    };
  }

  return {
    storage(storage) {
      const traced: Record<string, unknown> = {};
      for (const [name, value] of Object.entries(storage)) {
        if (!isRepository(value)) continue;
        traced[name] = name === 'orders' ? tracedRepository(name, storage.orders, system, groupCommit(storage.orders)) : tracedRepository(name, value, system);
      }
      return { ...storage, ...traced } as Storage;
    },
    changeStatus(changeStatus) {
      return (change) => {
        callers.set(change, context.active());
        return changeStatus(change);
      };
    },
  };
}

/** A span per delivery attempt (`message delivery`), whose context the webhook request carries as `traceparent`. */
export function tracedDelivery(delivery: MessageDelivery): MessageDelivery {
  return {
    kind: delivery.kind,
    deliver: (message, signal) =>
      inSpan('message delivery', { attributes: { 'messaging.message.id': message.id, 'store.delivery.attempt': message.attempts } }, () => delivery.deliver(message, signal)),
  };
}

/** A span per webhook delivery attempt (`webhook delivery`), whose context the request carries as `traceparent`. */
export function tracedWebhookSender<S extends Sender<ClaimedWebhookDelivery>>(sender: S): S {
  return {
    ...sender,
    deliver: (delivery, signal) =>
      inSpan(
        'webhook delivery',
        { attributes: { 'store.webhook.endpoint_id': delivery.endpointId, 'store.event.id': delivery.eventId, 'store.delivery.attempt': delivery.attempts } },
        () => sender.deliver(delivery, signal),
      ),
  };
}
