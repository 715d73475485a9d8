import { CLAIM_LOOKAHEAD } from '../../delivery/delivery-engine.js';
import type Database from 'better-sqlite3';
import { NotFoundError } from '../../errors/errors.js';
import type { Outcome } from '../../delivery/delivery-queue.js';
import type { WebhooksRepository } from '../../webhooks/webhooks-repository.js';
import { insertAuditEntries } from './sqlite-audit-repository.js';
import { sqliteConstraint, statementCache } from './sqlite-util.js';
import {
  ENDPOINT_COLUMNS,
  endpointDisabledEntry,
  FAILING_ENDPOINT_DISABLED_AFTER_MS,
  FAILING_REASON,
  GONE_REASON,
  storedEventTypes,
  toClaimedDelivery,
  toDelivery,
  toEndpoint,
  type ClaimedDeliveryRow,
  type DeliveryRow,
  type EndpointRow,
} from '../webhook-rows.js';

const DELIVERY_COLUMNS = 'seq, event_id, status, created_at, attempts, last_attempt_at, last_status_code, last_error, last_duration_ms, next_attempt_at';

export function createSqliteWebhooksRepository(db: Database.Database): WebhooksRepository {
  const sql = statementCache(db);

  // One immediate transaction holds SQLite's writer lock: what it finds due
  // leaves "due" before any other claimer looks. A delivery is due only when
  // no earlier delivery of its subject to its endpoint is still pending (in
  // flight, waiting for a retry, or held back by a disabled endpoint). An
  // endpoint offers only the room it has left of this claimant's slots for
  // it (one while it is failing): the first CLAIM_LOOKAHEAD × limit due
  // deliveries of endpoints with room, at most their room each. Each claim
  // carries the time it was due at (for the delivery-lag metric).
  const claim = db.transaction((claimant: string, now: string, claimedUntil: string, limit: number, inFlight: string, perEndpoint: number) => {
    const due = sql(
      `WITH busy AS (SELECT key AS endpoint_id, value AS n FROM json_each(?)),
       candidates AS (
         SELECT d.seq, d.endpoint_id, d.next_attempt_at,
                (CASE WHEN w.failing_since IS NULL THEN ? ELSE 1 END) - coalesce(b.n, 0) AS room
         FROM webhook_deliveries d JOIN webhook_endpoints w ON w.id = d.endpoint_id LEFT JOIN busy b ON b.endpoint_id = d.endpoint_id
         WHERE d.status = 'pending' AND d.next_attempt_at <= ? AND w.status = 'enabled'
           AND (CASE WHEN w.failing_since IS NULL THEN ? ELSE 1 END) > coalesce(b.n, 0)
           AND NOT EXISTS (SELECT 1 FROM webhook_deliveries p
                           WHERE p.endpoint_id = d.endpoint_id AND p.subject = d.subject AND p.status = 'pending' AND p.seq < d.seq)
         ORDER BY d.next_attempt_at, d.seq LIMIT ?)
       SELECT seq, next_attempt_at FROM (
         SELECT seq, next_attempt_at, room, row_number() OVER (PARTITION BY endpoint_id ORDER BY next_attempt_at, seq) AS rank FROM candidates)
       WHERE rank <= room ORDER BY next_attempt_at, seq LIMIT ?`,
    ).all(inFlight, perEndpoint, now, perEndpoint, limit * CLAIM_LOOKAHEAD, limit) as { seq: bigint; next_attempt_at: string }[];
    if (due.length === 0) return [];
    const seqs = JSON.stringify(due.map(({ seq }) => Number(seq)));
    sql(`UPDATE webhook_deliveries SET claimed_by = ?, next_attempt_at = ?, attempts = attempts + 1 WHERE seq IN (SELECT value FROM json_each(?))`).run(claimant, claimedUntil, seqs);
    const dueAt = new Map(due.map(({ seq, next_attempt_at }) => [String(seq), next_attempt_at]));
    const rows = sql(
      `SELECT d.seq, d.attempts, d.endpoint_id, d.event_id, w.url, w.secret, w.previous_secret, w.previous_secret_until, e.payload
       FROM webhook_deliveries d JOIN webhook_endpoints w ON w.id = d.endpoint_id JOIN events e ON e.id = d.event_id
       WHERE d.seq IN (SELECT value FROM json_each(?)) ORDER BY d.seq`,
    ).all(seqs) as Omit<ClaimedDeliveryRow, 'due_at'>[];
    return rows.map((row) => toClaimedDelivery({ ...row, due_at: dueAt.get(String(row.seq)) ?? now }));
  });

  const fail = db.transaction(
    (id: string, claimant: string, at: string, error: string, statusCode: number | null, durationMs: number | null, retryAt: string | undefined, gone: boolean) => {
      const settled = sql(
        `UPDATE webhook_deliveries SET status = ?, next_attempt_at = ?, claimed_by = NULL, last_attempt_at = ?, last_status_code = ?, last_error = ?, last_duration_ms = ?
         WHERE seq = ? AND claimed_by = ? AND status = 'pending' RETURNING endpoint_id`,
      ).get(retryAt === undefined ? 'failed' : 'pending', retryAt ?? at, at, statusCode, error, durationMs, BigInt(id), claimant) as { endpoint_id: string } | undefined;
      if (settled === undefined) return false;
      const before = sql('SELECT account_id, status FROM webhook_endpoints WHERE id = ?').get(settled.endpoint_id) as { account_id: bigint; status: string };
      let after: { status: string };
      if (gone) {
        after = sql(`UPDATE webhook_endpoints SET status = 'disabled', disabled_reason = ? WHERE id = ? RETURNING status`).get(GONE_REASON, settled.endpoint_id) as { status: string };
      } else {
        const cutoff = new Date(Date.parse(at) - FAILING_ENDPOINT_DISABLED_AFTER_MS).toISOString();
        after = sql(
          `UPDATE webhook_endpoints SET failing_since = coalesce(failing_since, ?),
             status = CASE WHEN coalesce(failing_since, ?) <= ? THEN 'disabled' ELSE status END,
             disabled_reason = CASE WHEN coalesce(failing_since, ?) <= ? AND status = 'enabled' THEN ? ELSE disabled_reason END
           WHERE id = ? RETURNING status`,
        ).get(at, at, cutoff, at, cutoff, FAILING_REASON, settled.endpoint_id) as { status: string };
      }
      if (before.status === 'enabled' && after.status === 'disabled') {
        const endpoint = { id: settled.endpoint_id, accountId: Number(before.account_id) };
        insertAuditEntries(sql, [endpointDisabledEntry(endpoint, at, gone ? GONE_REASON : FAILING_REASON)]);
      }
      return true;
    },
  );

  const succeed = db.transaction((id: string, claimant: string, at: string, statusCode: number | null, durationMs: number | null) => {
    const settled = sql(
      `UPDATE webhook_deliveries SET status = 'succeeded', claimed_by = NULL, last_attempt_at = ?, last_status_code = ?, last_error = NULL, last_duration_ms = ?
       WHERE seq = ? AND claimed_by = ? AND status = 'pending' RETURNING endpoint_id`,
    ).get(at, statusCode, durationMs, BigInt(id), claimant) as { endpoint_id: string } | undefined;
    if (settled === undefined) return false;
    sql('UPDATE webhook_endpoints SET failing_since = NULL WHERE id = ? AND failing_since IS NOT NULL').run(settled.endpoint_id);
    return true;
  });

  const settleMany = db.transaction((outcomes: readonly Outcome[]) => {
    for (const { sent, settlement } of outcomes) {
      if (sent) succeed(settlement.id, settlement.claimant, settlement.at, settlement.statusCode ?? null, settlement.durationMs ?? null);
      else
        fail(
          settlement.id,
          settlement.claimant,
          settlement.at,
          settlement.error,
          settlement.statusCode ?? null,
          settlement.durationMs ?? null,
          settlement.retryAt,
          settlement.gone === true,
        );
    }
  });

  const redeliver = db.transaction((accountId: number, eventId: string, endpointId: string | undefined, now: string): number | undefined => {
    const event = sql('SELECT id, type, subject FROM events WHERE id = ? AND account_id = ?').get(eventId, accountId) as
      | { id: string; type: string; subject: string }
      | undefined;
    if (event === undefined) return undefined;
    const result =
      endpointId === undefined
        ? sql(
            `INSERT INTO webhook_deliveries (endpoint_id, event_id, subject, status, created_at, next_attempt_at)
             SELECT id, ?, ?, 'pending', ?, ? FROM webhook_endpoints
             WHERE account_id = ? AND status = 'enabled' AND (event_types IS NULL OR (' ' || event_types || ' ') LIKE ?)`,
          ).run(event.id, event.subject, now, now, accountId, `% ${event.type} %`)
        : sql(
            `INSERT INTO webhook_deliveries (endpoint_id, event_id, subject, status, created_at, next_attempt_at)
             SELECT id, ?, ?, 'pending', ?, ? FROM webhook_endpoints WHERE account_id = ? AND id = ?`,
          ).run(event.id, event.subject, now, now, accountId, endpointId);
    return result.changes;
  });

  return {
    async createEndpoint(endpoint) {
      try {
        const row = sql(
          `INSERT INTO webhook_endpoints (id, account_id, url, event_types, description, status, secret, created_at)
           VALUES (?, ?, ?, ?, ?, 'enabled', ?, ?) RETURNING ${ENDPOINT_COLUMNS}`,
        ).get(endpoint.id, endpoint.accountId, endpoint.url, storedEventTypes(endpoint.eventTypes), endpoint.description, endpoint.sealedSecret, endpoint.createdAt) as EndpointRow;
        return toEndpoint(row);
      } catch (error) {
        if (sqliteConstraint(error) === 'SQLITE_CONSTRAINT_FOREIGNKEY') throw new NotFoundError('account_not_found', `Account ${endpoint.accountId} does not exist.`);
        throw error;
      }
    },
    async listEndpoints(accountId, afterId, limit) {
      const rows = sql(`SELECT ${ENDPOINT_COLUMNS} FROM webhook_endpoints WHERE account_id = ? AND id > ? ORDER BY id LIMIT ?`).all(accountId, afterId ?? '', limit) as EndpointRow[];
      return rows.map(toEndpoint);
    },
    async findEndpoint(accountId, id) {
      const row = sql(`SELECT ${ENDPOINT_COLUMNS} FROM webhook_endpoints WHERE account_id = ? AND id = ?`).get(accountId, id) as EndpointRow | undefined;
      return row && toEndpoint(row);
    },
    async updateEndpoint(accountId, id, changes) {
      const row = sql(
        `UPDATE webhook_endpoints SET
           url = coalesce(?, url),
           event_types = CASE WHEN ? THEN ? ELSE event_types END,
           description = CASE WHEN ? THEN ? ELSE description END,
           status = coalesce(?, status),
           disabled_reason = CASE WHEN ? = 'enabled' THEN NULL ELSE disabled_reason END,
           failing_since = CASE WHEN ? = 'enabled' THEN NULL ELSE failing_since END
         WHERE account_id = ? AND id = ? RETURNING ${ENDPOINT_COLUMNS}`,
      ).get(
        changes.url ?? null,
        changes.eventTypes === undefined ? 0 : 1,
        changes.eventTypes === undefined ? null : storedEventTypes(changes.eventTypes),
        changes.description === undefined ? 0 : 1,
        changes.description ?? null,
        changes.status ?? null,
        changes.status ?? null,
        changes.status ?? null,
        accountId,
        id,
      ) as EndpointRow | undefined;
      return row && toEndpoint(row);
    },
    async deleteEndpoint(accountId, id) {
      return sql('DELETE FROM webhook_endpoints WHERE account_id = ? AND id = ?').run(accountId, id).changes > 0;
    },
    async rotateSecret(accountId, id, { sealedSecret, previousUntil }) {
      const row = sql(
        `UPDATE webhook_endpoints SET previous_secret = secret, previous_secret_until = ?, secret = ?
         WHERE account_id = ? AND id = ? RETURNING ${ENDPOINT_COLUMNS}`,
      ).get(previousUntil, sealedSecret, accountId, id) as EndpointRow | undefined;
      return row && toEndpoint(row);
    },
    async listDeliveries(accountId, endpointId, beforeId, limit) {
      const rows = sql(
        `SELECT ${DELIVERY_COLUMNS.split(', ').map((column) => `d.${column}`).join(', ')}
         FROM webhook_deliveries d JOIN webhook_endpoints w ON w.id = d.endpoint_id
         WHERE w.account_id = ? AND d.endpoint_id = ? AND d.seq < ? ORDER BY d.seq DESC LIMIT ?`,
      ).all(accountId, endpointId, beforeId === undefined ? Number.MAX_SAFE_INTEGER : Number(beforeId), limit) as DeliveryRow[];
      return rows.map(toDelivery);
    },
    async redeliver({ accountId, eventId, endpointId, now }) {
      return redeliver.immediate(accountId, eventId, endpointId, now);
    },
    async oldestDueAt() {
      // What the claim would take, in due order: the due index, stopping at the
      // first delivery of an enabled endpoint with no earlier one of its
      // subject pending (a held-back delivery waits for its receiver, not the engine).
      const row = sql(
        `SELECT d.next_attempt_at FROM webhook_deliveries d JOIN webhook_endpoints w ON w.id = d.endpoint_id
         WHERE d.status = 'pending' AND w.status = 'enabled'
           AND NOT EXISTS (SELECT 1 FROM webhook_deliveries p
                           WHERE p.endpoint_id = d.endpoint_id AND p.subject = d.subject AND p.status = 'pending' AND p.seq < d.seq)
         ORDER BY d.next_attempt_at LIMIT 1`,
      ).get() as { next_attempt_at: string } | undefined;
      return row?.next_attempt_at;
    },
    async claimDue({ claimant, now, claimedUntil, limit, inFlight = new Map(), perDestination = limit }) {
      return claim.immediate(claimant, now, claimedUntil, limit, JSON.stringify(Object.fromEntries(inFlight)), perDestination);
    },
    async markSent({ id, claimant, at, statusCode, durationMs }) {
      return succeed.immediate(id, claimant, at, statusCode ?? null, durationMs ?? null);
    },
    async markAttemptFailed({ id, claimant, at, error, statusCode, durationMs, retryAt, gone }) {
      return fail.immediate(id, claimant, at, error, statusCode ?? null, durationMs ?? null, retryAt, gone === true);
    },
    async settleMany(outcomes) {
      settleMany.immediate(outcomes);
    },
    async release({ id, claimant, at }) {
      const result = sql(
        `UPDATE webhook_deliveries SET next_attempt_at = ?, claimed_by = NULL, attempts = attempts - 1
         WHERE seq = ? AND claimed_by = ? AND status = 'pending'`,
      ).run(at, BigInt(id), claimant);
      return result.changes > 0;
    },
  };
}
