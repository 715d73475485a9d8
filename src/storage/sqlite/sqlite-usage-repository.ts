import type Database from 'better-sqlite3';
import { usageOfDelivery, USAGE_COUNTERS, type UsageIncrement } from '../../usage/usage-counters.js';
import type { UsageRepository } from '../../usage/usage-repository.js';
import type { Outcome } from '../../delivery/delivery-queue.js';
import { toUsageHour, USAGE_COUNTER_COLUMNS, USAGE_UPSERT, usageCounts, type UsageRow } from '../usage-rows.js';
import { statementCache, type Prepare } from './sqlite-util.js';

const PLACEHOLDERS = USAGE_COUNTERS.map(() => '?').join(', ');

/** Adds the increments to their account-hours; to run inside the caller's transaction (the request logs' batch). */
export function addUsage(sql: Prepare, increments: readonly UsageIncrement[]): void {
  const upsert = sql(`INSERT INTO usage_hours (account_id, hour, ${USAGE_COUNTER_COLUMNS}) VALUES (?, ?, ${PLACEHOLDERS}) ${USAGE_UPSERT}`);
  for (const increment of increments) upsert.run(increment.accountId, increment.hour, ...usageCounts(increment));
}

/**
 * Adds what a settled delivery counts (usageOfDelivery: the rule is the usage
 * capability's) to the hour of the account owning `endpointId`; to run inside
 * the settlement's transaction. (`WHERE` also settles SQLite's parse of an
 * upsert after a SELECT.)
 */
export function addDeliveryUsage(sql: Prepare, endpointId: string, outcome: Outcome): void {
  const increment = usageOfDelivery(outcome);
  sql(`INSERT INTO usage_hours (account_id, hour, ${USAGE_COUNTER_COLUMNS}) SELECT account_id, ?, ${PLACEHOLDERS} FROM webhook_endpoints WHERE id = ? ${USAGE_UPSERT}`).run(
    increment.hour,
    ...usageCounts(increment),
    endpointId,
  );
}

export function createSqliteUsageRepository(db: Database.Database): UsageRepository {
  const sql = statementCache(db);
  return {
    async listHours(accountId, since, until) {
      const rows = sql(`SELECT hour, ${USAGE_COUNTER_COLUMNS} FROM usage_hours WHERE account_id = ? AND hour >= ? AND hour < ? ORDER BY hour`).all(accountId, since, until) as UsageRow[];
      return rows.map(toUsageHour);
    },
    async deleteBefore(before, limit) {
      return sql('DELETE FROM usage_hours WHERE rowid IN (SELECT rowid FROM usage_hours WHERE hour < ? LIMIT ?)').run(before, limit).changes;
    },
  };
}
