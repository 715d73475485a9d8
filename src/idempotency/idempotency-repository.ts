/** Which client request an Idempotency-Key record belongs to. */
export interface IdempotencyKeyRef {
  accountId: number;
  key: string;
}

/** The first response to a request with a key, as the client saw it: replayed byte for byte, never interpreted. */
export interface StoredResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** A claim of a key by one request: only the holder of `token` may complete or release it. */
export interface IdempotencyClaim extends IdempotencyKeyRef {
  token: string;
}

export interface NewIdempotencyClaim extends IdempotencyClaim {
  /** SHA-256 of the method, path and canonical body. */
  fingerprint: string;
  now: string;
  /** The claim's lease: after it a repeat may take the key over (the first request's process died). */
  lockedUntil: string;
  expiresAt: string;
}

/** What a key already held: its request's fingerprint and, once complete, the first response. */
export interface HeldIdempotencyKey {
  fingerprint: string;
  response?: StoredResponse;
}

/** Completes a claim with the response `respond` makes of what the write produced, in the write's own transaction. */
export interface IdempotencyCompletion<T> {
  claim: IdempotencyClaim;
  respond: (result: T) => StoredResponse;
}

/** Storage of Idempotency-Key records. Adapters live in src/storage/<database>/. */
export interface IdempotencyRepository {
  /**
   * Claims the key in one atomic statement: inserts an in-progress record,
   * or takes over one that expired or whose lease lapsed. Of concurrent
   * claims exactly one succeeds; the others get the record as it stands.
   */
  claim(claim: NewIdempotencyClaim): Promise<{ claimed: true } | { claimed: false; held: HeldIdempotencyKey }>;
  /** Stores the first response; false when the claim was lost (its lease lapsed and another request took the key). */
  complete(claim: IdempotencyClaim, response: StoredResponse): Promise<boolean>;
  /** Forgets a claim whose request ended without a response worth replaying (5xx, 429). */
  release(claim: IdempotencyClaim): Promise<void>;
  /** Deletes up to `limit` records that expired by `now`; resolves with how many. */
  pruneExpired(now: string, limit: number): Promise<number>;
}

/** Thrown by a write whose claim was lost meanwhile (its lease lapsed and a repeat took the key): the write is rolled back. */
export class IdempotencyClaimLost extends Error {
  constructor() {
    super('the Idempotency-Key claim was lost');
    this.name = 'IdempotencyClaimLost';
  }
}
