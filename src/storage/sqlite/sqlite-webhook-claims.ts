import type Database from 'better-sqlite3';
import type { ClaimedWebhookDelivery } from '../../webhooks/webhooks-repository.js';
import type { Prepare } from './sqlite-util.js';
import { materializeDeliveries } from './sqlite-webhook-cursors.js';
import { ratePace, toClaimedDelivery, type ClaimedDeliveryRow, type RatePace } from '../webhook-rows.js';

interface EndpointToClaim {
  id: string;
  failing: bigint;
  rate_limit: bigint | null;
  rate_next_at: string | null;
}

interface Candidate {
  seq: bigint;
  next_attempt_at: string;
  endpoint_id: string;
}

/** Claims due deliveries for `claimant` (see claimDeliveries). */
export type ClaimTransaction = Database.Transaction<
  (claimant: string, now: string, claimedUntil: string, limit: number, inFlight: ReadonlyMap<string, number>, windows: ReadonlyMap<string, number>, perEndpoint: number) => ClaimedWebhookDelivery[]
>;

/** The webhook delivery claim of one connection (sqlite-webhooks-repository.ts): a transaction function, to run with .immediate. */
export function claimDeliveries(db: Database.Database, sql: Prepare): ClaimTransaction {
  // One immediate transaction holds SQLite's writer lock. First the
  // deliveries of the events written since the last claim (each enabled
  // endpoint's cursor moved on with them: materializeDeliveries); then what
  // it finds due
  // leaves "due" before any other claimer looks. Per endpoint, so that no
  // endpoint's backlog costs another anything: the endpoints with pending
  // deliveries (a loose index scan: one index read per endpoint), and of
  // each enabled one with room left of this claimant's slots for it (one
  // while it is failing), its first due deliveries, at most that room; the
  // earliest due of those, up to `limit`. A delivery is due only when no
  // earlier delivery of its subject to its endpoint is still pending (in
  // flight, waiting for a retry, or held back by a disabled endpoint). Each
  // claim carries the time it was due at (for the delivery-lag metric).
  return db.transaction(
    (claimant: string, now: string, claimedUntil: string, limit: number, inFlight: ReadonlyMap<string, number>, windows: ReadonlyMap<string, number>, perEndpoint: number) => {
    materializeDeliveries(sql);
    const endpoints = sql(
      `WITH RECURSIVE pending_endpoints(id) AS (
         SELECT min(endpoint_id) FROM webhook_deliveries WHERE status = 'pending'
         UNION ALL
         SELECT (SELECT min(d.endpoint_id) FROM webhook_deliveries d WHERE d.status = 'pending' AND d.endpoint_id > p.id) FROM pending_endpoints p WHERE p.id IS NOT NULL)
       SELECT w.id, w.failing_since IS NOT NULL AS failing, w.rate_limit, w.rate_next_at
       FROM pending_endpoints p JOIN webhook_endpoints w ON w.id = p.id
       WHERE w.status = 'enabled' AND (w.paused_until IS NULL OR w.paused_until <= ?)`,
    ).all(now) as EndpointToClaim[];
    const firstDue = sql(
      `SELECT d.seq, d.next_attempt_at FROM webhook_deliveries d
       WHERE d.endpoint_id = ? AND d.status = 'pending' AND d.next_attempt_at <= ?
         AND NOT EXISTS (SELECT 1 FROM webhook_deliveries p
                         WHERE p.endpoint_id = d.endpoint_id AND p.subject = d.subject AND p.status = 'pending' AND p.seq < d.seq)
       ORDER BY d.next_attempt_at, d.seq LIMIT ?`,
    );
    const candidates: Candidate[] = [];
    const paced = new Map<string, RatePace>();
    for (const endpoint of endpoints) {
      let room = (endpoint.failing === 1n ? 1 : (windows.get(endpoint.id) ?? perEndpoint)) - (inFlight.get(endpoint.id) ?? 0);
      if (endpoint.rate_limit !== null) {
        const pace = ratePace(Number(endpoint.rate_limit), endpoint.rate_next_at, now);
        paced.set(endpoint.id, pace);
        room = Math.min(room, pace.room);
      }
      if (room <= 0) continue;
      for (const row of firstDue.all(endpoint.id, now, room) as { seq: bigint; next_attempt_at: string }[]) candidates.push({ ...row, endpoint_id: endpoint.id });
    }
    const due = candidates
      .sort((a, b) => (a.next_attempt_at < b.next_attempt_at ? -1 : a.next_attempt_at > b.next_attempt_at ? 1 : a.seq < b.seq ? -1 : a.seq > b.seq ? 1 : 0))
      .slice(0, limit);
    if (due.length === 0) return [];
    // Each rate-limited endpoint's starts, spaced by its rate, reserved by moving its next start on.
    const notBefore = new Map<string, string>();
    for (const [endpointId, pace] of paced) {
      const mine = due.filter((row) => row.endpoint_id === endpointId);
      if (mine.length === 0) continue;
      mine.forEach((row, index) => notBefore.set(String(row.seq), pace.start(index)));
      sql('UPDATE webhook_endpoints SET rate_next_at = ? WHERE id = ?').run(pace.start(mine.length), endpointId);
    }
    const seqs = JSON.stringify(due.map(({ seq }) => Number(seq)));
    sql(`UPDATE webhook_deliveries SET claimed_by = ?, next_attempt_at = ?, attempts = attempts + 1 WHERE seq IN (SELECT value FROM json_each(?))`).run(claimant, claimedUntil, seqs);
    const dueAt = new Map(due.map(({ seq, next_attempt_at }) => [String(seq), next_attempt_at]));
    const rows = sql(
      `SELECT d.seq, d.attempts, d.endpoint_id, d.event_id, w.url, w.secret, w.previous_secret, w.previous_secret_until, e.payload
       FROM webhook_deliveries d JOIN webhook_endpoints w ON w.id = d.endpoint_id JOIN events e ON e.id = d.event_id
       WHERE d.seq IN (SELECT value FROM json_each(?)) ORDER BY d.seq`,
    ).all(seqs) as Omit<ClaimedDeliveryRow, 'due_at'>[];
    return rows.map((row) => toClaimedDelivery({ ...row, due_at: dueAt.get(String(row.seq)) ?? now, not_before: notBefore.get(String(row.seq)) ?? null }));
  });
}
