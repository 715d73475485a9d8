import type { UsageIncrement } from '../usage/usage-counters.js';

/** The API versions a request log names: the path's first segment. */
export const API_VERSIONS = ['v1', 'v2'] as const;
export type ApiVersion = (typeof API_VERSIONS)[number];

/** One request to the store host that named an account, as stored. Never a header, cookie or secret. */
export interface NewRequestLog {
  accountId: number;
  /** When the request arrived, ISO 8601 UTC with milliseconds. */
  at: string;
  method: string;
  /** Path and query as sent, query values that could be secrets redacted (request-log-url.ts). */
  path: string;
  status: number;
  /** The Error record's code of a non-2xx answer. */
  errorCode?: string;
  durationMs: number;
  requestId: string;
  /** The key the request was made with (its id, never the key). */
  keyId?: number;
  clientAddress?: string;
  userAgent?: string;
  apiVersion?: ApiVersion;
  /** The Error record of a non-2xx answer, as sent (JSON text). */
  errorBody?: string;
}

/**
 * Logged requests in their stored form, column by column: what the recorder
 * hands storage in one append (RequestLogsRepository.append). The n-th value
 * of every column is the n-th request's. The recorder builds them from its
 * capture buffer's columns (request-log-entries.ts) without an object per
 * request: read as an object per request (NewRequestLog), the flush spent
 * more on reading and re-reading them than on the write itself
 * (BENCHMARKS.md, fifteenth session). entriesOf() (stored-requests.ts) reads
 * them back as objects, for an adapter that writes objects (PostgreSQL).
 */
export interface StoredRequests {
  readonly length: number;
  readonly accountId: Float64Array;
  /** When the request arrived: epoch milliseconds, whole (stored to the millisecond); NaN when atText holds it. */
  readonly at: Float64Array;
  /** A time not in the stored form, as its text (only entries read back from an older release's rows, written again). */
  readonly atText?: readonly (string | undefined)[];
  readonly method: readonly string[];
  /** Path and query, redacted (request-log-entries.ts). */
  readonly path: readonly string[];
  readonly status: Float64Array;
  /** To the microsecond. */
  readonly durationMs: Float64Array;
  /** NaN: no key. */
  readonly keyId: Float64Array;
  readonly clientAddress: readonly (string | undefined)[];
  readonly userAgent: readonly (string | undefined)[];
  readonly apiVersion: readonly (ApiVersion | undefined)[];
  readonly errorCode: readonly (string | undefined)[];
  readonly errorBody: readonly (string | undefined)[];
  /** The request id, when it is not in randomUUID's form; undefined when it is, and it is then in `uuids`. */
  readonly requestId: readonly (string | undefined)[];
  /** Four words per request, at 4n (request-id-words.ts): its id, when requestId holds none. */
  readonly uuids: Uint32Array;
}

export interface RequestLog extends NewRequestLog {
  id: bigint;
  /** The visible start of the key (so_prod_ab12), when the key still exists. */
  keyStart?: string;
}

/** A status filter: one status (409) or a class (4xx: 400 to 499). */
export interface StatusRange {
  min: number;
  max: number;
}

export interface RequestLogFilters {
  status?: StatusRange;
  method?: string;
  /** The stored path starts with this text. */
  pathPrefix?: string;
  requestId?: string;
  keyId?: number;
  /** ISO 8601 UTC with milliseconds: at or after. */
  since?: string;
  /** ISO 8601 UTC with milliseconds: before. */
  until?: string;
}

/** Where a page resumes: below this (at, id), newest first. */
export interface RequestLogPosition {
  at: string;
  id: bigint;
}

/** Storage of the request logs: appended in batches, read newest first per account, pruned by age. */
export interface RequestLogsRepository {
  /**
   * Writes the requests (stored-requests.ts: column by column) and adds
   * `usage` (what they count, usage/usage-counters.ts) to the account-hours'
   * counters, in one statement or transaction; a request of an unknown
   * account rejects the call (account_not_found) and nothing is written.
   */
  append(requests: StoredRequests, usage: readonly UsageIncrement[]): Promise<void>;
  /** The account's entries matching `filters`, ordered by (at, id) descending, below `before` when given; at most `limit`. */
  listPage(query: { accountId: number; filters: RequestLogFilters; before?: RequestLogPosition; limit: number }): Promise<RequestLog[]>;
  /**
   * The account's entries whose path names the order (request-log-orders.ts:
   * /v1/store/orders/<id> or /v2/store/orders/<id>, alone or followed by / or
   * a query), newest first by (at, id), at most `limit`.
   */
  listForOrder(query: { accountId: number; orderId: bigint; limit: number }): Promise<RequestLog[]>;
  /** One of the account's entries by id. */
  findById(accountId: number, id: bigint): Promise<RequestLog | undefined>;
  /** Deletes at most `limit` entries older than `before` (any account); answers how many it deleted. */
  deleteOlderThan(before: string, limit: number): Promise<number>;
}
