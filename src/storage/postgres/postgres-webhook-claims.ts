import { RATE_HORIZON_MS } from '../webhook-rows.js';
import { qualified } from './postgres-sql.js';

/**
 * Per endpoint, so that no endpoint's backlog costs another anything:
 * the endpoints with pending deliveries (a loose index scan: one index
 * read per endpoint), and of each enabled one with room left of this
 * claimant's slots for it (one while it is failing), its first due
 * deliveries, at most that room; the earliest due of those, up to
 * `limit`. A delivery is due only when no earlier delivery of its
 * subject to its endpoint is still pending (one in flight is pending,
 * so its successor waits). SKIP LOCKED: concurrent claimers pass over
 * rows another one has locked, and a row another claimer took
 * meanwhile is no longer due when the lock is granted (PostgreSQL
 * checks the row again), so no row is taken twice.
 *
 * An endpoint paused by its receiver's Retry-After offers nothing. One
 * with a rate limit offers at most the starts its rate allows within
 * RATE_HORIZON_MS of its next free start; `paced` reserves the starts of
 * what was claimed by moving that next start on, an UPDATE of the
 * endpoint's row: a concurrent claimer waits for the row and moves it on
 * from the new value, so every process together keeps the one rate. Each
 * claimed delivery of such an endpoint carries its start (not_before).
 *
 * Parameters: $1 claimant, $2 claimedUntil, $3 now, $4 limit, $5 the window
 * of an endpoint not in $7, $6 attempts in flight per endpoint (JSON), $7
 * windows per endpoint (JSON).
 */
export const CLAIM_DELIVERIES = `WITH RECURSIVE pending_endpoints(id) AS (
           (SELECT endpoint_id FROM webhook_deliveries WHERE status = 'pending' ORDER BY endpoint_id LIMIT 1)
           UNION ALL
           SELECT (SELECT d.endpoint_id FROM webhook_deliveries d WHERE d.status = 'pending' AND d.endpoint_id > p.id ORDER BY d.endpoint_id LIMIT 1)
           FROM pending_endpoints p WHERE p.id IS NOT NULL),
         candidates AS (
           SELECT c.seq, c.due_at
           FROM pending_endpoints p JOIN webhook_endpoints w ON w.id = p.id AND w.status = 'enabled' AND (w.paused_until IS NULL OR w.paused_until <= $3::timestamptz)
           LEFT JOIN (SELECT key AS endpoint_id, value::integer AS n FROM jsonb_each_text($6::jsonb)) b ON b.endpoint_id = w.id
           LEFT JOIN (SELECT key AS endpoint_id, value::integer AS n FROM jsonb_each_text($7::jsonb)) cap ON cap.endpoint_id = w.id
           CROSS JOIN LATERAL (
             SELECT d.seq, d.next_attempt_at AS due_at FROM webhook_deliveries d
             WHERE d.endpoint_id = w.id AND d.status = 'pending' AND d.next_attempt_at <= $3
               AND NOT EXISTS (SELECT 1 FROM webhook_deliveries p
                               WHERE p.endpoint_id = d.endpoint_id AND p.subject = d.subject AND p.status = 'pending' AND p.seq < d.seq)
             ORDER BY d.next_attempt_at, d.seq
             LIMIT greatest(least(
               (CASE WHEN w.failing_since IS NULL THEN coalesce(cap.n, $5::integer) ELSE 1 END) - coalesce(b.n, 0),
               CASE WHEN w.rate_limit IS NULL THEN $4::integer
                    ELSE floor(extract(epoch FROM $3::timestamptz + interval '${RATE_HORIZON_MS} milliseconds' - greatest($3::timestamptz, coalesce(w.rate_next_at, $3::timestamptz))) * w.rate_limit)::integer + 1 END), 0)) c),
         due AS (
           SELECT d.seq, c.due_at FROM candidates c JOIN webhook_deliveries d ON d.seq = c.seq
           WHERE d.status = 'pending' AND d.next_attempt_at <= $3
           ORDER BY c.due_at, c.seq LIMIT $4 FOR UPDATE OF d SKIP LOCKED),
         claimed AS (
           UPDATE webhook_deliveries u SET claimed_by = $1, next_attempt_at = $2, attempts = u.attempts + 1
           FROM due WHERE u.seq = due.seq
           RETURNING u.seq, u.attempts, u.endpoint_id, u.event_id, due.due_at),
         paced AS (
           UPDATE webhook_endpoints w SET rate_next_at = greatest($3::timestamptz, coalesce(w.rate_next_at, $3::timestamptz)) + k.n * interval '1 second' / w.rate_limit
           FROM (SELECT endpoint_id, count(*) AS n FROM claimed GROUP BY endpoint_id) k
           WHERE w.id = k.endpoint_id AND w.rate_limit IS NOT NULL
           RETURNING w.id, w.rate_next_at - k.n * interval '1 second' / w.rate_limit AS first_start, interval '1 second' / w.rate_limit AS gap),
         started AS (
           SELECT c.*, p.first_start + (row_number() OVER (PARTITION BY c.endpoint_id ORDER BY c.seq) - 1) * p.gap AS not_before
           FROM claimed c LEFT JOIN paced p ON p.id = c.endpoint_id)
         SELECT c.seq::text AS seq, c.attempts, c.endpoint_id, c.event_id, w.url, w.secret, w.previous_secret,
                ${qualified('w', 'previous_secret_until')}, e.payload, ${qualified('c', 'due_at')}, ${qualified('c', 'not_before')}
         FROM started c JOIN webhook_endpoints w ON w.id = c.endpoint_id JOIN events e ON e.id = c.event_id ORDER BY c.seq`;
