import type { Clock } from '../shared/clock.js';
import { Lru } from '../shared/lru.js';
import type { ApiKeyPrincipal, ApiKeysRepository, KeyOwner } from './api-keys-repository.js';

export interface ApiKeyCacheOptions {
  /**
   * How long a lookup is trusted. It bounds how long a key revoked by another
   * process keeps working here, and how long a key created by another
   * process is still refused after a lookup that missed.
   */
  ttlMs?: number;
  /** Keys remembered as valid. */
  maxKnown?: number;
  /** Hashes remembered as unknown: kept apart so that a flood of made-up keys evicts only its own kind. */
  maxUnknown?: number;
}

interface Entry {
  principal: ApiKeyPrincipal | undefined;
  checkedAt: number;
}

/**
 * Puts an in-memory cache in front of `findActiveByHash`, the lookup every
 * authenticated request makes, keyed by the key's SHA-256 (the secret itself
 * is never held). Writes go straight through; a revocation, roll or creation
 * made through this repository takes effect here at once, one made by another
 * process within `ttlMs`. Expiry needs no invalidation: the principal carries
 * `expiresAt` and the service compares it with the clock on every request. Concurrent misses for one hash share one lookup.
 */
export function cacheApiKeyLookups(
  repository: ApiKeysRepository,
  clock: Clock,
  { ttlMs = 1000, maxKnown = 10_000, maxUnknown = 10_000 }: ApiKeyCacheOptions = {},
): ApiKeysRepository & { forgetKnown(): void } {
  const known = new Lru<string, Entry>(maxKnown);
  const unknown = new Lru<string, Entry>(maxUnknown);
  const inFlight = new Map<string, Promise<ApiKeyPrincipal | undefined>>();
  // Keys never change owner: only a key unknown when asked can become known (created since), which ttlMs bounds.
  const owners = new Lru<string, { owner: KeyOwner | undefined; checkedAt: number }>(maxUnknown);
  // Bumped by every local write, so that a lookup begun before a revocation
  // does not store its (now stale) answer after it.
  let generation = 0;

  /**
   * After a local write, even one whose outcome is unknown (committed, then
   * the connection dropped): lookups begun before it neither store their
   * answer nor are joined by later requests.
   */
  function afterWrite(): void {
    generation++;
    inFlight.clear();
  }

  function fresh(entry: Entry | undefined, now: number): entry is Entry {
    return entry !== undefined && now - entry.checkedAt < ttlMs && now >= entry.checkedAt;
  }

  return {
    /** After keys were revoked other than through this repository (an account's deletion, in its own transaction): every key is looked up again. */
    forgetKnown(): void {
      afterWrite();
      known.clear();
    },
    listByAccount: (accountId) => repository.listByAccount(accountId),
    async create(key) {
      try {
        return await repository.create(key);
      } finally {
        afterWrite();
        unknown.delete(key.hash);
      }
    },
    async revoke(id, revokedAt) {
      try {
        return await repository.revoke(id, revokedAt);
      } finally {
        afterWrite();
        // Revocations are rare; forgetting every known key is simpler than indexing them by id.
        known.clear();
      }
    },
    findById: (id) => repository.findById(id),
    findOwnerByHash(hash) {
      // Asked only for requests whose key failed (request logs): remembered, so that a client retrying with a revoked key costs one lookup per ttlMs.
      const now = clock.now().getTime();
      const hit = owners.get(hash);
      if (hit !== undefined && now - hit.checkedAt < ttlMs && now >= hit.checkedAt) return Promise.resolve(hit.owner);
      return repository.findOwnerByHash(hash).then((owner) => {
        owners.set(hash, { owner, checkedAt: now });
        return owner;
      });
    },
    async roll(seen, replacement) {
      try {
        return await repository.roll(seen, replacement);
      } finally {
        afterWrite();
        // The old key's expiry moved and a new key exists: forget both kinds.
        known.clear();
        unknown.clear();
      }
    },
    recordLastUsed: (uses) => repository.recordLastUsed(uses),
    findActiveByHash(hash) {
      const now = clock.now().getTime();
      const hit = known.get(hash) ?? unknown.get(hash);
      if (fresh(hit, now)) return Promise.resolve(hit.principal);
      const pending = inFlight.get(hash);
      if (pending !== undefined) return pending;
      const startedAt = generation;
      const lookup = repository.findActiveByHash(hash).then(
        (principal) => {
          if (inFlight.get(hash) === lookup) inFlight.delete(hash);
          if (startedAt === generation) {
            const entry = { principal, checkedAt: now };
            if (principal === undefined) {
              known.delete(hash);
              unknown.set(hash, entry);
            } else {
              unknown.delete(hash);
              known.set(hash, entry);
            }
          }
          return principal;
        },
        (error: unknown) => {
          if (inFlight.get(hash) === lookup) inFlight.delete(hash);
          throw error;
        },
      );
      inFlight.set(hash, lookup);
      return lookup;
    },
  };
}
