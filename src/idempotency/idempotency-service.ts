import { randomUUID } from 'node:crypto';
import { AppError, InvalidInputError } from '../errors/errors.js';
import type { Clock } from '../shared/clock.js';
import type { IdempotencyClaim, IdempotencyRepository, StoredResponse } from './idempotency-repository.js';

/** Stripe's bound on an Idempotency-Key. */
export const IDEMPOTENCY_KEY_MAX_LENGTH = 255;
/** How long a key replays its first response; afterwards it may be used afresh. */
const IDEMPOTENCY_WINDOW_MS = 24 * 60 * 60 * 1000;
/** An in-progress claim older than this is taken to have died with its process. */
const IDEMPOTENCY_LEASE_MS = 60_000;
/** How long a repeat waits for the first request, and how often it looks. */
export const IDEMPOTENCY_WAIT_MS = 5_000;
export const IDEMPOTENCY_POLL_MS = 100;

// Printable ASCII (0x20 space to 0x7E tilde): what survives every proxy unchanged.
const IDEMPOTENCY_KEY = new RegExp(`^[\\x20-\\x7E]{1,${IDEMPOTENCY_KEY_MAX_LENGTH}}$`);

/** Whether `key` is a well-formed Idempotency-Key: the one rule for every capability that takes one (orders, messages). */
export function isIdempotencyKey(key: string): boolean {
  return IDEMPOTENCY_KEY.test(key);
}

export const IDEMPOTENCY_KEY_DESCRIPTION = `1 to ${IDEMPOTENCY_KEY_MAX_LENGTH} printable ASCII characters (space to ~)`;

/** Where a request with a key goes: on, holding the claim, or straight back with the first response. */
export type IdempotencyStart = { kind: 'claimed'; claim: IdempotencyClaim } | { kind: 'replay'; response: StoredResponse };

export interface IdempotencyServiceDependencies {
  idempotencyRepository: IdempotencyRepository;
  clock: Clock;
  /** How long a repeat waits for a first request still running before 409 idempotency_key_in_use. */
  waitMs: number;
  pollMs: number;
}

/**
 * Stripe's Idempotency-Key semantics, per account: the first request with a
 * key claims it; its response (errors included, except 5xx and 429) is kept
 * for 24 hours and replayed to a repeat with the same fingerprint; another
 * fingerprint is 422; a repeat while the first runs waits, then gets 409.
 */
export function createIdempotencyService({ idempotencyRepository, clock, waitMs, pollMs }: IdempotencyServiceDependencies) {
  const inUse = () =>
    new AppError('idempotency_key_in_use', 'A request with this Idempotency-Key is still in progress; retry after it has finished.', {
      'retry-after': String(Math.max(1, Math.ceil(pollMs / 1000))),
    });

  return {
    /** Claims `key` for this request, or answers with the first response; throws 422 or 409 as above. */
    async begin(accountId: number, key: string, fingerprint: string): Promise<IdempotencyStart> {
      if (!isIdempotencyKey(key)) throw new InvalidInputError('idempotencyKey', `is not valid. Expected: ${IDEMPOTENCY_KEY_DESCRIPTION}.`);
      const deadline = Date.now() + waitMs;
      for (;;) {
        const now = clock.now().getTime();
        const claim = { accountId, key, token: randomUUID() };
        const result = await idempotencyRepository.claim({
          ...claim,
          fingerprint,
          now: new Date(now).toISOString(),
          lockedUntil: new Date(now + IDEMPOTENCY_LEASE_MS).toISOString(),
          expiresAt: new Date(now + IDEMPOTENCY_WINDOW_MS).toISOString(),
        });
        if (result.claimed) return { kind: 'claimed', claim };
        if (result.held.fingerprint !== fingerprint) {
          throw new AppError(
            'idempotency_key_reused',
            'This Idempotency-Key was already used with a different request in the last 24 hours; use a new key for a new request.',
          );
        }
        if (result.held.response !== undefined) return { kind: 'replay', response: result.held.response };
        if (Date.now() + pollMs > deadline) throw inUse();
        await new Promise((resolve) => setTimeout(resolve, pollMs));
      }
    },

    /** Keeps a response that was not stored with its write (a refusal): a lost claim changes nothing. */
    async finish(claim: IdempotencyClaim, response: StoredResponse): Promise<void> {
      if (response.status >= 500 || response.status === 429) await idempotencyRepository.release(claim);
      else await idempotencyRepository.complete(claim, response);
    },

    /** One round of pruning: records expired now, at most `limit`. */
    async pruneExpired(limit: number): Promise<number> {
      return idempotencyRepository.pruneExpired(clock.now().toISOString(), limit);
    },

    /** The refusal of a write whose claim was lost meanwhile (its lease lapsed and a repeat took the key). */
    claimLost: inUse,
  };
}

export type IdempotencyService = ReturnType<typeof createIdempotencyService>;
