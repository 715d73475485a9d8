/** One key's current window: attempts counted in it and when it ends (ISO 8601 UTC). */
export interface ThrottleWindow {
  count: number;
  endsAt: string;
}

/** What `take` answers: the attempt counted, or refused with the end of the full window. */
export type ThrottleTake = { taken: true } | { taken: false; endsAt: string };

/**
 * Storage of the attempt throttle's fixed windows, shared by every process
 * on the database. Keys are opaque (the throttle hashes them). Adapters live
 * in src/storage/<database>/.
 */
export interface AttemptThrottleRepository {
  /**
   * Counts one attempt on `key` in one statement, so concurrent processes
   * never overshoot `limit`: a key without a live window (none, or ended by
   * `at`) starts one ending `windowEndsAt` with a count of 1; a live window
   * under `limit` counts one more; a full one is left as it is and refused.
   */
  take(key: string, { limit, at, windowEndsAt }: { limit: number; at: string; windowEndsAt: string }): Promise<ThrottleTake>;
  /** Gives one counted attempt back to a live window (never below zero). */
  giveBack(key: string, at: string): Promise<void>;
  /** The key's live window at `at`, if any. */
  peek(key: string, at: string): Promise<ThrottleWindow | undefined>;
  /** Forgets the key's window. */
  clear(key: string): Promise<void>;
  /** Deletes every window ended by `at`; resolves with how many. */
  pruneExpired(at: string): Promise<number>;
}
