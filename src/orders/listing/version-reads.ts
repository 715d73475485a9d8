import { createBatcher } from '../../shared/batcher.js';
import type { OrdersRepository } from '../orders-repository.js';

/** Version reads in flight at once; few, so that a burst cannot take every pooled connection. */
const VERSION_READS_IN_FLIGHT = 4;

/** An account's orders version, as read by a request that has arrived. */
export type ReadVersion = (accountId: number) => Promise<bigint>;

/**
 * Listing requests (v1 and v2) that arrive together read each account's
 * version once: under load that is one read for many requests, and each read
 * still starts after every request it answers arrived, so none misses an
 * earlier commit. Create one per storage and share it.
 */
export function createVersionReads(ordersRepository: Pick<OrdersRepository, 'ordersVersion'>): ReadVersion {
  return createBatcher<number, bigint>(
    async (accountIds) => {
      const unique = [...new Set(accountIds)];
      const versions = new Map(await Promise.all(unique.map(async (id) => [id, await ordersRepository.ordersVersion(id)] as const)));
      return accountIds.map((id) => versions.get(id) ?? 0n);
    },
    // Reads may overlap: requests that arrive while one read is in flight
    // (a database round trip away) start their own instead of idling.
    { maxInFlight: VERSION_READS_IN_FLIGHT },
  );
}
