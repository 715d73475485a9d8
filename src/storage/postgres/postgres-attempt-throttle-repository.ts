import type { AttemptThrottleRepository } from '../../users/attempt-throttle-repository.js';
import { isoTimestamp, type Sql } from './postgres-sql.js';

export function createPostgresAttemptThrottleRepository(sql: Sql): AttemptThrottleRepository {
  return {
    async take(key, { limit, at, windowEndsAt }) {
      // One statement: ON CONFLICT takes the row lock, so concurrent takes on one key count one after another.
      const counted = await sql(
        `INSERT INTO attempt_throttle (key, count, ends_at) VALUES ($1, 1, $3)
         ON CONFLICT (key) DO UPDATE SET
           count = CASE WHEN attempt_throttle.ends_at <= $2 THEN 1 ELSE attempt_throttle.count + 1 END,
           ends_at = CASE WHEN attempt_throttle.ends_at <= $2 THEN excluded.ends_at ELSE attempt_throttle.ends_at END
         WHERE attempt_throttle.ends_at <= $2 OR attempt_throttle.count < $4
         RETURNING count`,
        [key, at, windowEndsAt, limit],
      );
      if (counted.length > 0) return { taken: true };
      const [row] = await sql<{ ends_at: string }>(`SELECT ${isoTimestamp('ends_at')} FROM attempt_throttle WHERE key = $1`, [key]);
      return { taken: false, endsAt: row?.ends_at ?? windowEndsAt };
    },
    async giveBack(key, at) {
      await sql('UPDATE attempt_throttle SET count = count - 1 WHERE key = $1 AND count > 0 AND ends_at > $2', [key, at]);
    },
    async peek(key, at) {
      const [row] = await sql<{ count: number; ends_at: string }>(`SELECT count, ${isoTimestamp('ends_at')} FROM attempt_throttle WHERE key = $1 AND ends_at > $2`, [key, at]);
      return row && { count: row.count, endsAt: row.ends_at };
    },
    async clear(key) {
      await sql('DELETE FROM attempt_throttle WHERE key = $1', [key]);
    },
    async pruneExpired(at) {
      return (await sql('DELETE FROM attempt_throttle WHERE ends_at <= $1 RETURNING key', [at])).length;
    },
  };
}
