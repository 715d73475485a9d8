import type { Clock } from '../shared/clock.js';
import type { ApiKeysRepository } from './api-keys-repository.js';
import { createPeriodicFlush } from '../shared/periodic-flush.js';

/**
 * Remembers when each key was last used and writes the times to storage in
 * one batch per interval, so authentication costs no database write. After a
 * crash at most one interval of last-used times is lost; they are advisory.
 */
export function createKeyUsageRecorder({ apiKeysRepository, clock }: { apiKeysRepository: ApiKeysRepository; clock: Clock }) {
  // Milliseconds, turned into ISO text only when written: touch() runs on every request.
  let pending = new Map<number, number>();

  async function flush(): Promise<void> {
    if (pending.size === 0) return;
    const batch = pending;
    pending = new Map();
    try {
      await apiKeysRepository.recordLastUsed([...batch].map(([id, at]) => ({ id, at: new Date(at).toISOString() })));
    } catch (error) {
      // Keep the times for the next attempt, unless a newer use replaced them.
      for (const [id, at] of batch) if (!pending.has(id)) pending.set(id, at);
      throw error;
    }
  }

  return {
    /** Notes a use of `keyId` now. Memory only. */
    touch(keyId: number): void {
      pending.set(keyId, clock.now().getTime());
    },
    flush,
    ...createPeriodicFlush(flush),
  };
}

export type KeyUsageRecorder = ReturnType<typeof createKeyUsageRecorder>;
