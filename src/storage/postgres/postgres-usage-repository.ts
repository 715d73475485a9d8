import { usageOfDelivery, USAGE_COUNTERS, type UsageIncrement } from '../../usage/usage-counters.js';
import type { UsageRepository } from '../../usage/usage-repository.js';
import type { Outcome } from '../../delivery/delivery-queue.js';
import { toUsageHour, USAGE_COUNTER_COLUMNS, USAGE_UPSERT, usageCounts, type UsageRow } from '../usage-rows.js';
import { arrayLiteral, isoTimestamp, type Sql } from './postgres-sql.js';

/**
 * A CTE (named `usage`) adding the increments to their account-hours, for a
 * statement whose other parameters come first: the request logs' batch
 * writes its rows and the counters in one statement. The increments are
 * sorted by account and hour (usageOfRequests), so concurrent batches lock
 * the rows they share in the same order.
 */
export function usageCte(increments: readonly UsageIncrement[], firstParam: number): { cte: string; values: string[] } {
  const counts = increments.map(usageCounts);
  const values = [
    arrayLiteral(increments, (increment) => increment.accountId),
    arrayLiteral(increments, (increment) => increment.hour),
    ...USAGE_COUNTERS.map((_counter, i) => arrayLiteral(counts, (row) => row[i])),
  ];
  const types = ['bigint', 'timestamptz', ...USAGE_COUNTERS.map(() => 'integer')];
  const cte = `usage AS (
    INSERT INTO usage_hours (account_id, hour, ${USAGE_COUNTER_COLUMNS})
    SELECT * FROM unnest(${types.map((type, i) => `$${firstParam + i}::${type}[]`).join(', ')})
    ${USAGE_UPSERT} RETURNING 1)`;
  return { cte, values };
}

/**
 * A CTE (named `usage`) adding what a settled delivery counts
 * (usageOfDelivery: the rule is the usage capability's) to the hour of the
 * account owning the endpoint of the statement's `settled` CTE (one row, with
 * endpoint_id); its parameters are numbered from `firstParam`.
 */
export function deliveryUsageCte(outcome: Outcome, firstParam: number): { cte: string; values: (string | number)[] } {
  const increment = usageOfDelivery(outcome);
  const cte = `usage AS (
    INSERT INTO usage_hours (account_id, hour, ${USAGE_COUNTER_COLUMNS})
    SELECT w.account_id, $${firstParam}::timestamptz, ${USAGE_COUNTERS.map((_c, i) => `$${firstParam + 1 + i}::integer`).join(', ')}
    FROM settled s JOIN webhook_endpoints w ON w.id = s.endpoint_id
    ${USAGE_UPSERT} RETURNING 1)`;
  return { cte, values: [increment.hour, ...usageCounts(increment)] };
}

export function createPostgresUsageRepository(sql: Sql): UsageRepository {
  return {
    async listHours(accountId, since, until) {
      const rows = await sql<UsageRow>(
        `SELECT ${isoTimestamp('hour')}, ${USAGE_COUNTER_COLUMNS} FROM usage_hours
         WHERE account_id = $1 AND hour >= $2::timestamptz AND hour < $3::timestamptz ORDER BY hour`,
        [accountId, since, until],
      );
      return rows.map(toUsageHour);
    },
    async deleteBefore(before, limit) {
      const rows = await sql<{ deleted: string }>(
        `WITH gone AS (
           DELETE FROM usage_hours WHERE (account_id, hour) IN (SELECT account_id, hour FROM usage_hours WHERE hour < $1::timestamptz LIMIT $2) RETURNING 1
         )
         SELECT count(*)::text AS deleted FROM gone`,
        [before, limit],
      );
      return Number(rows[0]?.deleted ?? 0);
    },
  };
}
