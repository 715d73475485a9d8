import type { EventType } from './event-types.js';

/**
 * An event to write in the same transaction as the change it reports
 * (the transactional outbox). Built by event-records.ts.
 */
export interface NewEvent {
  /** `evt_` and 32 hex digits. */
  id: string;
  accountId: number;
  type: EventType;
  /** ISO 8601 UTC with milliseconds: when the change happened. */
  createdAt: string;
  /**
   * What the event is about, e.g. `order:1001` or `message:<id>`: a
   * subject's events are delivered to a webhook endpoint in order.
   */
  subject: string;
  /** The Event record's JSON text, exactly as it is sent (feed and webhooks). */
  payload: string;
}

/** An event as stored: its account's position fixes the feed's order, which is commit order. */
export interface StoredEvent extends NewEvent {
  /** 1, 2, 3… per account, assigned under the account's row lock, so increasing in commit order. */
  position: bigint;
}

/** Validated and normalised filters of the feed. The created range is half-open, [createdFrom, createdTo). */
export interface EventFilter {
  /** Non-empty when present. */
  types?: readonly EventType[];
  createdFrom?: string;
  createdTo?: string;
  /** Only events about this subject (`order:1001`): an order's history. */
  subject?: string;
}

export interface EventPageQuery {
  accountId: number;
  filter: EventFilter;
  /** Only events after this position (0: from the first). */
  afterPosition: bigint;
  limit: number;
}

/**
 * Reading and pruning the outbox. Events are written only by the adapters'
 * write paths (orders, messages) inside the transaction of their change.
 * Adapters live in src/storage/<database>/.
 */
export interface EventsRepository {
  /** The account's matching events after `afterPosition`, by position, at most `limit`. */
  listPage(query: EventPageQuery): Promise<StoredEvent[]>;
  /** The event if it exists and belongs to the account. */
  findForAccount(accountId: number, id: string): Promise<StoredEvent | undefined>;
  /** Deletes up to `limit` events created before `before`; returns how many it deleted. */
  pruneBefore(before: string, limit: number): Promise<number>;
}
