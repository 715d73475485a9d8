import type { UsageHour } from './usage-counters.js';

/**
 * Storage of the per account-hour usage counters (usage_hours). Written
 * only beside what they count, in the same transaction: the request logs'
 * batch (RequestLogsRepository.append) and a webhook delivery's settlement
 * (WebhooksRepository); read and pruned here.
 */
export interface UsageRepository {
  /** The account's hours from `since` (inclusive) to `until` (exclusive), oldest first; hours with nothing counted are absent. */
  listHours(accountId: number, since: string, until: string): Promise<UsageHour[]>;
  /** Deletes at most `limit` hours (any account) that start before `before`; answers how many it deleted. */
  deleteBefore(before: string, limit: number): Promise<number>;
}
