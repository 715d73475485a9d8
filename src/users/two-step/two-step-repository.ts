/**
 * A user's second sign-in step: an authenticator app's codes (TOTP, RFC
 * 6238) and one-time recovery codes, and the sign-ins waiting for a code.
 * Adapters live in src/storage/<database>/.
 */

/** A user's authenticator app as stored: the shared secret sealed (src/secrets/secret-box.ts), never in clear. */
export interface StoredAuthenticator {
  userId: number;
  sealedSecret: string;
  /** ISO 8601 UTC, when a first code confirmed the set-up; undefined while it waits for one (two-step sign-in is off until then). */
  confirmedAt?: string;
  /** The highest time step (Unix seconds / 30) whose code was accepted, 0 before any: a code is used at most once. */
  lastStep: number;
  /** ISO 8601 UTC. */
  createdAt: string;
}

export interface NewPendingSignIn {
  /** SHA-256 (hex) of the token the browser holds; the token itself is never stored. */
  tokenHash: string;
  userId: number;
  /** ISO 8601 UTC. */
  createdAt: string;
  expiresAt: string;
}

export interface TwoStepRepository {
  /**
   * Starts (or starts again) a set-up: the user's unconfirmed secret, if
   * any, is replaced by `sealedSecret`. 'already_on' (nothing changed) when
   * the user has a confirmed one.
   */
  begin(userId: number, sealedSecret: string, at: string): Promise<'started' | 'already_on'>;
  find(userId: number): Promise<StoredAuthenticator | undefined>;
  /**
   * Confirms the unconfirmed set-up with the step of its first accepted
   * code, and stores the recovery codes' hashes (replacing any), in one
   * transaction. False (nothing changed) when the user has no unconfirmed
   * secret or `step` is not above its last one.
   */
  confirm(userId: number, step: number, recoveryCodeHashes: readonly string[], at: string): Promise<boolean>;
  /**
   * Records an accepted code's step on a confirmed authenticator,
   * atomically (one conditional UPDATE): false when `step` is not above the
   * last one (a code used again, or a race lost to another process).
   */
  useStep(userId: number, step: number): Promise<boolean>;
  /** Marks one unused recovery code of the user used at `at`, atomically: false when none unused has that hash (used twice: the second is false). */
  useRecoveryCode(userId: number, codeHash: string, at: string): Promise<boolean>;
  /** How many of the user's recovery codes are unused. */
  unusedRecoveryCodes(userId: number): Promise<number>;
  /** Replaces every recovery code of a user whose authenticator is confirmed, in one transaction; false (nothing changed) otherwise. */
  replaceRecoveryCodes(userId: number, codeHashes: readonly string[], at: string): Promise<boolean>;
  /** Turns two-step sign-in off: deletes the authenticator, its recovery codes and the user's pending sign-ins. True when there was an authenticator. */
  remove(userId: number): Promise<boolean>;
  /** Stores a sign-in whose password was right and which waits for a code; deletes every expired pending sign-in (of anyone) in the same call. */
  createPendingSignIn(pending: NewPendingSignIn): Promise<void>;
  /** The user of the pending sign-in with that token hash, when it exists and has not expired at `now` (it is not consumed). */
  findPendingSignIn(tokenHash: string, now: string): Promise<number | undefined>;
  /** Deletes the pending sign-in and answers its user when it existed and had not expired at `now` (once: a second call answers undefined). */
  consumePendingSignIn(tokenHash: string, now: string): Promise<number | undefined>;
  /** Deletes every pending sign-in of the user (their password changed: a sign-in begun with the old one must not finish). */
  endPendingSignIns(userId: number): Promise<void>;
}
