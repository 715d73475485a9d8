/**
 * What the delivery engine needs from storage, whatever it delivers
 * (quickstart messages, webhook deliveries). Each adapter keeps its own
 * table; the claim protocol is the same: a claim is a lease held until
 * `claimedUntil`, after which an unsettled item is due again for anyone.
 */

/** An item a claimant holds until its lease ends; only that claimant can settle it. */
export interface ClaimedItem {
  id: string;
  /** Including the attempt this claim starts. */
  attempts: number;
  /** When it became due (created, retry time, or a lapsed claim's end): its attempt's lag is measured from here. */
  dueAt: string;
  /**
   * Where it goes (a webhook endpoint's id): attempts to one destination
   * share that destination's slots and no other's. Absent: the queue has
   * one destination.
   */
  destination?: string;
  /**
   * Not to be started before this instant (the destination's rate limit
   * spaced its starts; at most a second ahead). Absent: start at once.
   */
  notBefore?: string;
}

export interface ClaimRequest {
  /** Identifies the claiming engine (unique per process run). */
  claimant: string;
  now: string;
  /** After this instant an unsettled claim lapses and another engine may take the item. */
  claimedUntil: string;
  limit: number;
  /**
   * Attempts this claimant has in flight per destination, and how many one
   * destination may have at once: `windows` for the destinations named
   * there, `perDestination` for any other (a destination that is failing
   * gets one). A queue with several destinations offers none of a
   * destination already at its limit, and at most the room left of each
   * other one, so that a slow destination's queue can never take the
   * claimant's slots from the others. A queue with one destination may
   * ignore them (the engine's limit bounds it). Absent: nothing in flight,
   * no bound.
   */
  inFlight?: ReadonlyMap<string, number>;
  windows?: ReadonlyMap<string, number>;
  perDestination?: number;
}

export interface Settlement {
  id: string;
  claimant: string;
  at: string;
  /** Which attempt this was (1 for the first), for queues that keep each attempt. */
  attempt?: number;
}

/** What one attempt sent and what came back, for queues that keep each attempt (the webhooks' log). Never a secret. */
export interface AttemptExchange {
  /** The request's headers as sent, the signature among them. */
  requestHeaders: Readonly<Record<string, string>>;
  /** The answer's headers and the first RECORDED_BODY_LIMIT bytes of its body, when one came. */
  response?: { headers: Readonly<Record<string, string>>; body: string };
}

/** The most of an answer's body an attempt's record keeps. */
export const RECORDED_BODY_LIMIT = 4096;

/** What one attempt observed, for queues that keep a delivery log. */
export interface AttemptRecord {
  /** The receiver's HTTP status, when it answered. */
  statusCode?: number;
  durationMs?: number;
  exchange?: AttemptExchange;
  /** Which way it went, for queues with more than one (mail: `smtp`, or kept in the local `outbox`). */
  channel?: string;
}

export interface FailedAttempt extends AttemptRecord {
  error: string;
  /** Undefined: given up for good. */
  retryAt?: string;
  /** The receiver asked never to be called again (HTTP 410): stop delivering to it at all. */
  gone?: boolean;
  /**
   * The receiver asked not to be called before this instant (429 or 503
   * with Retry-After): queues with several destinations pause that whole
   * destination until then, not just this item.
   */
  pauseUntil?: string;
}

/** What one attempt came to, for settling. */
export type Outcome = { sent: true; settlement: Settlement & AttemptRecord } | { sent: false; settlement: Settlement & FailedAttempt };

export interface DeliveryQueue<T extends ClaimedItem> {
  /**
   * Atomically claims up to `limit` due items and counts an attempt on each.
   * Concurrent claimers, in this process or another one on the same
   * database, never get the same item while its claim holds.
   */
  claimDue(request: ClaimRequest): Promise<T[]>;
  /** Settles a success, if the claim is still held. Returns whether it was. */
  markSent(settlement: Settlement & AttemptRecord): Promise<boolean>;
  /** Records a failed attempt: due again at `retryAt`, or given up. Returns whether the claim was still held. */
  markAttemptFailed(settlement: Settlement & FailedAttempt): Promise<boolean>;
  /**
   * Settles a batch's outcomes at once, each exactly as markSent or
   * markAttemptFailed would (a claim no longer held is skipped). Optional:
   * where a commit is costly (SQLite's fsync) one commit for the batch is
   * what lets an engine deliver thousands a second.
   */
  settleMany?(outcomes: readonly Outcome[]): Promise<void>;
  /**
   * settleMany, then claimDue, in one transaction. Optional: where a commit
   * is costly (SQLite's fsync), an engine whose attempts end a few at a time
   * pays one commit per turn instead of two. If it throws, neither happened
   * (the settled claims lapse and are retried, as when settling fails).
   */
  settleAndClaim?(outcomes: readonly Outcome[], request: ClaimRequest): Promise<T[]>;
  /** Gives an item back unattempted (shutdown interrupted it): due at `at`, attempt not counted. */
  release(settlement: Settlement): Promise<boolean>;
  /**
   * The earliest due time among items still to deliver (one in flight is
   * due again only at its lease's end: a future time), or undefined when
   * none is waiting; only items a claim could take count (not those of a
   * disabled webhook endpoint, nor those held back behind an earlier one of
   * their order). One read of the queue's due index, for the
   * oldest-undelivered metric at each scrape.
   */
  oldestDueAt(): Promise<string | undefined>;
}
