import type Database from 'better-sqlite3';
import { NotFoundError } from '../../errors/errors.js';
import type { AttemptRecord, FailedAttempt, Outcome, Settlement } from '../../delivery/delivery-queue.js';
import type { NewWebhookEndpoint, WebhookEndpoint, WebhooksRepository } from '../../webhooks/webhooks-repository.js';
import { insertAuditEntries } from './sqlite-audit-repository.js';
import { sqliteConstraint, statementCache } from './sqlite-util.js';
import { claimDeliveries } from './sqlite-webhook-claims.js';
import { materializeDeliveries, oldestUnmaterialized } from './sqlite-webhook-cursors.js';
import { listEventDeliveries } from './sqlite-event-deliveries.js';
import { addDeliveryUsage } from './sqlite-usage-repository.js';
import { systemDisablings } from './sqlite-webhook-notices-repository.js';
import type { SystemDisableReason } from '../../webhooks/notices/webhook-notices-repository.js';
import {
  ENDPOINT_COLUMNS,
  endpointDisabledEntry,
  FAILING_ENDPOINT_DISABLED_AFTER_MS,
  FAILING_REASON,
  GONE_REASON,
  attemptColumns,
  sameEventTypes,
  storedEventTypes,
  toAttempt,
  type AttemptRow,
  toDelivery,
  toEndpoint,
  type DeliveryRow,
  type EndpointRow,
} from '../webhook-rows.js';

const DELIVERY_COLUMNS = 'seq, event_id, status, created_at, attempts, last_attempt_at, last_status_code, last_error, last_duration_ms, next_attempt_at';

/** `endpointDisabled` hears of each endpoint a settlement disabled, after its commit. */
export function createSqliteWebhooksRepository(db: Database.Database, endpointDisabled: (reason: SystemDisableReason) => void): WebhooksRepository {
  const sql = statementCache(db);
  const disablings = systemDisablings(sql, endpointDisabled);

  // The limit and the duplicate are read and the endpoint written under SQLite's one write lock.
  const createEndpoint = db.transaction((endpoint: NewWebhookEndpoint, maxPerAccount: number): WebhookEndpoint | 'limit_reached' | 'duplicate' => {
    const types = storedEventTypes(endpoint.eventTypes);
    const sameUrl = sql('SELECT event_types FROM webhook_endpoints WHERE account_id = ? AND url = ?').all(endpoint.accountId, endpoint.url) as { event_types: string | null }[];
    if (sameUrl.some((row) => sameEventTypes(row.event_types, endpoint.eventTypes))) return 'duplicate';
    const count = sql('SELECT count(*) FROM webhook_endpoints WHERE account_id = ?').pluck().get(endpoint.accountId) as bigint;
    if (Number(count) >= maxPerAccount) return 'limit_reached';
    const row = sql(
      `INSERT INTO webhook_endpoints (id, account_id, url, event_types, description, rate_limit, status, secret, created_at, delivered_through)
       VALUES (?, ?, ?, ?, ?, ?, 'enabled', ?, ?, coalesce((SELECT events_position FROM accounts WHERE id = ?), 0)) RETURNING ${ENDPOINT_COLUMNS}`,
    ).get(endpoint.id, endpoint.accountId, endpoint.url, types, endpoint.description, endpoint.rateLimit, endpoint.sealedSecret, endpoint.createdAt, endpoint.accountId) as EndpointRow;
    return toEndpoint(row);
  });

  const claim = claimDeliveries(db, sql);
  const materialize = db.transaction(() => materializeDeliveries(sql));

  /** The attempt's record (what was sent and what came back), beside the settlement that ends it. */
  const recordAttempt = (settlement: Settlement & AttemptRecord & { error?: string }) => {
    const columns = attemptColumns(settlement);
    if (columns === undefined) return;
    const [attempt, requestHeaders, responseHeaders, responseBody] = columns;
    sql(
      `INSERT OR IGNORE INTO webhook_delivery_attempts (delivery_seq, attempt, at, duration_ms, status_code, error, request_headers, response_headers, response_body)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ).run(BigInt(settlement.id), attempt, settlement.at, settlement.durationMs ?? null, settlement.statusCode ?? null, settlement.error ?? null, requestHeaders, responseHeaders, responseBody);
  };

  // Plain functions, run inside one of the transactions below (a transaction function called inside another is a SAVEPOINT each).
  const failOne = (settlement: Settlement & FailedAttempt): boolean => {
    const { id, claimant, at, error, retryAt } = settlement;
    const statusCode = settlement.statusCode ?? null;
    const durationMs = settlement.durationMs ?? null;
    const gone = settlement.gone === true;
    {
      const settled = sql(
        `UPDATE webhook_deliveries SET status = ?, next_attempt_at = ?, claimed_by = NULL, last_attempt_at = ?, last_status_code = ?, last_error = ?, last_duration_ms = ?
         WHERE seq = ? AND claimed_by = ? AND status = 'pending' RETURNING endpoint_id`,
      ).get(retryAt === undefined ? 'failed' : 'pending', retryAt ?? at, at, statusCode, error, durationMs, BigInt(id), claimant) as { endpoint_id: string } | undefined;
      if (settled === undefined) return false;
      if (settlement.pauseUntil !== undefined) {
        sql('UPDATE webhook_endpoints SET paused_until = ? WHERE id = ? AND (paused_until IS NULL OR paused_until < ?)').run(settlement.pauseUntil, settled.endpoint_id, settlement.pauseUntil);
      }
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
        disablings.started(endpoint.id, at, gone ? 'gone' : 'failing');
        insertAuditEntries(sql, [endpointDisabledEntry(endpoint, at, gone ? GONE_REASON : FAILING_REASON)]);
      }
      recordAttempt(settlement);
      addDeliveryUsage(sql, settled.endpoint_id, { sent: false, settlement });
      return true;
    }
  };

  const succeedOne = (settlement: Settlement & AttemptRecord): boolean => {
    const { id, claimant, at } = settlement;
    const statusCode = settlement.statusCode ?? null;
    const durationMs = settlement.durationMs ?? null;
    const settled = sql(
      `UPDATE webhook_deliveries SET status = 'succeeded', claimed_by = NULL, last_attempt_at = ?, last_status_code = ?, last_error = NULL, last_duration_ms = ?
       WHERE seq = ? AND claimed_by = ? AND status = 'pending' RETURNING endpoint_id`,
    ).get(at, statusCode, durationMs, BigInt(id), claimant) as { endpoint_id: string } | undefined;
    if (settled === undefined) return false;
    sql('UPDATE webhook_endpoints SET failing_since = NULL WHERE id = ? AND failing_since IS NOT NULL').run(settled.endpoint_id);
    recordAttempt(settlement);
    addDeliveryUsage(sql, settled.endpoint_id, { sent: true, settlement });
    return true;
  };
  const fail = db.transaction(failOne);
  const succeed = db.transaction(succeedOne);

  const settleAll = (outcomes: readonly Outcome[]) => {
    for (const outcome of outcomes) {
      if (outcome.sent) succeedOne(outcome.settlement);
      else failOne(outcome.settlement);
    }
  };
  const settleMany = db.transaction(settleAll);

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

  // One commit (one fsync) for what ended and what starts next.
  const settleAndClaim = db.transaction((outcomes: readonly Outcome[], ...request: Parameters<typeof claim>) => {
    settleAll(outcomes);
    return claim(...request);
  });

  return {
    async createEndpoint(endpoint, { maxPerAccount }) {
      try {
        return createEndpoint.immediate(endpoint, maxPerAccount);
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
      // Enabled again: migration 0031's trigger makes the backlog it had at the disabling and moves its cursor to now.
      const row = sql(
        `UPDATE webhook_endpoints SET
           url = coalesce(?, url),
           event_types = CASE WHEN ? THEN ? ELSE event_types END,
           description = CASE WHEN ? THEN ? ELSE description END,
           rate_limit = CASE WHEN ? THEN ? ELSE rate_limit END,
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
        changes.rateLimit === undefined ? 0 : 1,
        changes.rateLimit ?? null,
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
    async findEndpointTarget(accountId, id) {
      const row = sql('SELECT url, secret, previous_secret, previous_secret_until FROM webhook_endpoints WHERE account_id = ? AND id = ?').get(accountId, id) as
        | { url: string; secret: string; previous_secret: string | null; previous_secret_until: string | null }
        | undefined;
      return row && { url: row.url, sealedSecret: row.secret, previousSealedSecret: row.previous_secret, previousSecretUntil: row.previous_secret_until };
    },
    async findDelivery(accountId, endpointId, deliveryId) {
      const row = sql(
        `SELECT ${DELIVERY_COLUMNS.split(', ').map((column) => `d.${column}`).join(', ')}, e.payload
         FROM webhook_deliveries d JOIN webhook_endpoints w ON w.id = d.endpoint_id JOIN events e ON e.id = d.event_id
         WHERE w.account_id = ? AND d.endpoint_id = ? AND d.seq = ?`,
      ).get(accountId, endpointId, BigInt(deliveryId)) as (DeliveryRow & { payload: string }) | undefined;
      if (row === undefined) return undefined;
      const attempts = sql(
        `SELECT attempt, at, duration_ms, status_code, error, request_headers, response_headers, response_body
         FROM webhook_delivery_attempts WHERE delivery_seq = ? ORDER BY attempt`,
      ).all(BigInt(deliveryId)) as AttemptRow[];
      return { ...toDelivery(row), payload: row.payload, attemptLog: attempts.map(toAttempt) };
    },
    listEventDeliveries: async (accountId, eventIds, limit) => listEventDeliveries(sql, accountId, eventIds, limit),
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
    async recover({ accountId, endpointId, since, now }) {
      return sql(
        `INSERT INTO webhook_deliveries (endpoint_id, event_id, subject, status, created_at, next_attempt_at)
         SELECT d.endpoint_id, d.event_id, d.subject, 'pending', ?, ? FROM webhook_deliveries d JOIN webhook_endpoints w ON w.id = d.endpoint_id
         WHERE w.account_id = ? AND d.endpoint_id = ? AND d.status = 'failed' AND d.last_attempt_at >= ? ORDER BY d.seq`,
      ).run(now, now, accountId, endpointId, since).changes;
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
      // And the events no claim has made a delivery of yet: a stalled engine shows.
      const unmade = oldestUnmaterialized(sql);
      if (row === undefined || unmade === undefined) return row?.next_attempt_at ?? unmade;
      return unmade < row.next_attempt_at ? unmade : row.next_attempt_at;
    },
    async materializeDeliveries() {
      return materialize.immediate();
    },
    async claimDue({ claimant, now, claimedUntil, limit, inFlight = new Map(), windows = new Map(), perDestination = limit }) {
      return claim.immediate(claimant, now, claimedUntil, limit, inFlight, windows, perDestination);
    },
    async markSent(settlement) {
      return succeed.immediate(settlement);
    },
    async markAttemptFailed(settlement) {
      return disablings.committed(() => fail.immediate(settlement));
    },
    async settleMany(outcomes) {
      disablings.committed(() => settleMany.immediate(outcomes));
    },
    async settleAndClaim(outcomes, { claimant, now, claimedUntil, limit, inFlight = new Map(), windows = new Map(), perDestination = limit }) {
      return disablings.committed(() => settleAndClaim.immediate(outcomes, claimant, now, claimedUntil, limit, inFlight, windows, perDestination));
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
