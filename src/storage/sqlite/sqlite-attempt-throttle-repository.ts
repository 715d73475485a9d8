import type Database from 'better-sqlite3';
import type { AttemptThrottleRepository, ThrottleWindow } from '../../users/attempt-throttle-repository.js';
import { statementCache } from './sqlite-util.js';

export function createSqliteAttemptThrottleRepository(db: Database.Database): AttemptThrottleRepository {
  const sql = statementCache(db);
  return {
    async take(key, { limit, at, windowEndsAt }) {
      const counted = sql(
        `INSERT INTO attempt_throttle (key, count, ends_at) VALUES (@key, 1, @windowEndsAt)
         ON CONFLICT (key) DO UPDATE SET
           count = CASE WHEN attempt_throttle.ends_at <= @at THEN 1 ELSE attempt_throttle.count + 1 END,
           ends_at = CASE WHEN attempt_throttle.ends_at <= @at THEN excluded.ends_at ELSE attempt_throttle.ends_at END
         WHERE attempt_throttle.ends_at <= @at OR attempt_throttle.count < @limit
         RETURNING count`,
      ).get({ key, at, windowEndsAt, limit });
      if (counted !== undefined) return { taken: true };
      const row = sql('SELECT ends_at FROM attempt_throttle WHERE key = ?').get(key) as { ends_at: string } | undefined;
      return { taken: false, endsAt: row?.ends_at ?? windowEndsAt };
    },
    async giveBack(key, at) {
      sql('UPDATE attempt_throttle SET count = count - 1 WHERE key = ? AND count > 0 AND ends_at > ?').run(key, at);
    },
    async peek(key, at) {
      const row = sql('SELECT count, ends_at FROM attempt_throttle WHERE key = ? AND ends_at > ?').get(key, at) as { count: bigint; ends_at: string } | undefined;
      return row && ({ count: Number(row.count), endsAt: row.ends_at } satisfies ThrottleWindow);
    },
    async clear(key) {
      sql('DELETE FROM attempt_throttle WHERE key = ?').run(key);
    },
    async pruneExpired(at) {
      return sql('DELETE FROM attempt_throttle WHERE ends_at <= ?').run(at).changes;
    },
  };
}
