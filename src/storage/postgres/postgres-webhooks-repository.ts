import { NotFoundError } from '../../errors/errors.js';
import type { WebhooksRepository } from '../../webhooks/webhooks-repository.js';
import type { AttemptRecord, Settlement } from '../../delivery/delivery-queue.js';
import { insertAuditEntries } from './postgres-audit-repository.js';
import { CLAIM_DELIVERIES } from './postgres-webhook-claims.js';
import { materializeDeliveries, OLDEST_UNMATERIALIZED } from './postgres-webhook-cursors.js';
import { listEventDeliveries } from './postgres-event-deliveries.js';
import { startNotice } from './postgres-webhook-notices-repository.js';
import { deliveryUsageCte } from './postgres-usage-repository.js';
import { isoTimestamp, qualified, type Sql, type Transaction } from './postgres-sql.js';
import {
  endpointDisabledEntry,
  FAILING_ENDPOINT_DISABLED_AFTER_MS,
  FAILING_REASON,
  GONE_REASON,
  attemptColumns,
  sameEventTypes,
  storedEventTypes,
  toAttempt,
  type AttemptRow,
  toClaimedDelivery,
  toDelivery,
  toEndpoint,
  type ClaimedDeliveryRow,
  type DeliveryRow,
  type EndpointRow,
} from '../webhook-rows.js';

const ENDPOINT = `id, account_id, url, event_types, description, status, disabled_reason, rate_limit, ${isoTimestamp('paused_until')}, ${isoTimestamp('created_at')}`;
const DELIVERY = [
  'd.seq::text AS seq',
  'd.event_id',
  'd.status',
  qualified('d', 'created_at'),
  'd.attempts',
  qualified('d', 'last_attempt_at'),
  'd.last_status_code',
  'd.last_error',
  'd.last_duration_ms',
  qualified('d', 'next_attempt_at'),
].join(', ');

/** An attempt's record, beside the settlement that ends it (in its transaction); nothing when the settlement carries none. */
async function recordAttempt(tx: Sql, settlement: Settlement & AttemptRecord & { error?: string }): Promise<void> {
  const columns = attemptColumns(settlement);
  if (columns === undefined) return;
  const [attempt, requestHeaders, responseHeaders, responseBody] = columns;
  await tx(
    `INSERT INTO webhook_delivery_attempts (delivery_seq, attempt, at, duration_ms, status_code, error, request_headers, response_headers, response_body)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) ON CONFLICT (delivery_seq, attempt) DO NOTHING`,
    [settlement.id, attempt, settlement.at, settlement.durationMs ?? null, settlement.statusCode ?? null, settlement.error ?? null, requestHeaders, responseHeaders, responseBody],
  );
}

export function createPostgresWebhooksRepository(sql: Sql, transaction: Transaction): WebhooksRepository {
  return {
    async createEndpoint(endpoint, { maxPerAccount }) {
      // The account's row lock serialises creates of one account: the count
      // and the duplicate are read (a statement that starts after the lock
      // sees every create committed before it) and the endpoint written in
      // one transaction.
      return transaction(async (tx) => {
        const [account] = await tx('SELECT id FROM accounts WHERE id = $1 FOR NO KEY UPDATE', [endpoint.accountId]);
        if (account === undefined) throw new NotFoundError('account_not_found', `Account ${endpoint.accountId} does not exist.`);
        const types = storedEventTypes(endpoint.eventTypes);
        const sameUrl = await tx<{ event_types: string | null }>('SELECT event_types FROM webhook_endpoints WHERE account_id = $1 AND url = $2', [endpoint.accountId, endpoint.url]);
        if (sameUrl.some((row) => sameEventTypes(row.event_types, endpoint.eventTypes))) return 'duplicate' as const;
        const [taken] = await tx<{ n: number }>('SELECT count(*)::integer AS n FROM webhook_endpoints WHERE account_id = $1', [endpoint.accountId]);
        if ((taken?.n ?? 0) >= maxPerAccount) return 'limit_reached' as const;
        const [row] = await tx<EndpointRow>(
          // Its cursor starts at the account's last position (read under the
          // account's lock: no change writing events is between): it receives
          // the events written from now on.
          `INSERT INTO webhook_endpoints (id, account_id, url, event_types, description, rate_limit, status, secret, created_at, delivered_through)
           VALUES ($1, $2, $3, $4, $5, $6, 'enabled', $7, $8, (SELECT events_position FROM accounts WHERE id = $2)) RETURNING ${ENDPOINT}`,
          [endpoint.id, endpoint.accountId, endpoint.url, types, endpoint.description, endpoint.rateLimit, endpoint.sealedSecret, endpoint.createdAt],
        );
        if (row === undefined) throw new Error('INSERT … RETURNING returned no row');
        return toEndpoint(row);
      });
    },
    async listEndpoints(accountId, afterId, limit) {
      const rows = await sql<EndpointRow>(
        `SELECT ${ENDPOINT} FROM webhook_endpoints WHERE account_id = $1 AND id > $2 ORDER BY id COLLATE "C" LIMIT $3`,
        [accountId, afterId ?? '', limit],
      );
      return rows.map(toEndpoint);
    },
    async findEndpoint(accountId, id) {
      const [row] = await sql<EndpointRow>(`SELECT ${ENDPOINT} FROM webhook_endpoints WHERE account_id = $1 AND id = $2`, [accountId, id]);
      return row && toEndpoint(row);
    },
    async updateEndpoint(accountId, id, changes) {
      const [row] = await sql<EndpointRow>(
        `UPDATE webhook_endpoints SET
           url = coalesce($3, url),
           event_types = CASE WHEN $4::boolean THEN $5::text ELSE event_types END,
           description = CASE WHEN $6::boolean THEN $7::text ELSE description END,
           status = coalesce($8::text, status),
           disabled_reason = CASE WHEN $8 = 'enabled' THEN NULL ELSE disabled_reason END,
           failing_since = CASE WHEN $8 = 'enabled' THEN NULL ELSE failing_since END,
           rate_limit = CASE WHEN $9::boolean THEN $10::integer ELSE rate_limit END
           -- Enabled again: migration 0031's trigger makes the backlog it had at the disabling and moves its cursor to now.
         WHERE account_id = $1 AND id = $2 RETURNING ${ENDPOINT}`,
        [
          accountId,
          id,
          changes.url ?? null,
          changes.eventTypes !== undefined,
          changes.eventTypes === undefined ? null : storedEventTypes(changes.eventTypes),
          changes.description !== undefined,
          changes.description ?? null,
          changes.status ?? null,
          changes.rateLimit !== undefined,
          changes.rateLimit ?? null,
        ],
      );
      return row && toEndpoint(row);
    },
    async deleteEndpoint(accountId, id) {
      const rows = await sql('DELETE FROM webhook_endpoints WHERE account_id = $1 AND id = $2 RETURNING id', [accountId, id]);
      return rows.length > 0;
    },
    async rotateSecret(accountId, id, { sealedSecret, previousUntil }) {
      const [row] = await sql<EndpointRow>(
        `UPDATE webhook_endpoints SET previous_secret = secret, previous_secret_until = $3, secret = $4
         WHERE account_id = $1 AND id = $2 RETURNING ${ENDPOINT}`,
        [accountId, id, previousUntil, sealedSecret],
      );
      return row && toEndpoint(row);
    },
    async findEndpointTarget(accountId, id) {
      const [row] = await sql<{ url: string; secret: string; previous_secret: string | null; previous_secret_until: string | null }>(
        `SELECT url, secret, previous_secret, ${isoTimestamp('previous_secret_until')} FROM webhook_endpoints WHERE account_id = $1 AND id = $2`,
        [accountId, id],
      );
      return row && { url: row.url, sealedSecret: row.secret, previousSealedSecret: row.previous_secret, previousSecretUntil: row.previous_secret_until };
    },
    async findDelivery(accountId, endpointId, deliveryId) {
      const [row] = await sql<DeliveryRow & { payload: string }>(
        `SELECT ${DELIVERY}, e.payload FROM webhook_deliveries d JOIN webhook_endpoints w ON w.id = d.endpoint_id JOIN events e ON e.id = d.event_id
         WHERE w.account_id = $1 AND d.endpoint_id = $2 AND d.seq = $3`,
        [accountId, endpointId, deliveryId],
      );
      if (row === undefined) return undefined;
      const attempts = await sql<AttemptRow>(
        `SELECT attempt, ${isoTimestamp('at')}, duration_ms, status_code, error, request_headers, response_headers, response_body
         FROM webhook_delivery_attempts WHERE delivery_seq = $1 ORDER BY attempt`,
        [deliveryId],
      );
      return { ...toDelivery(row), payload: row.payload, attemptLog: attempts.map(toAttempt) };
    },
    listEventDeliveries: (accountId, eventIds, limit) => listEventDeliveries(sql, accountId, eventIds, limit),
    async listDeliveries(accountId, endpointId, beforeId, limit) {
      const rows = await sql<DeliveryRow>(
        `SELECT ${DELIVERY} FROM webhook_deliveries d JOIN webhook_endpoints w ON w.id = d.endpoint_id
         WHERE w.account_id = $1 AND d.endpoint_id = $2 AND d.seq < $3 ORDER BY d.seq DESC LIMIT $4`,
        [accountId, endpointId, beforeId ?? '9223372036854775807', limit],
      );
      return rows.map(toDelivery);
    },
    async redeliver({ accountId, eventId, endpointId, now }) {
      // One statement: the event's existence and the new deliveries are read and written together.
      const [row] = await sql<{ found: boolean; queued: number }>(
        `WITH event AS (SELECT id, type, subject FROM events WHERE id = $2 AND account_id = $1),
         queued AS (
           INSERT INTO webhook_deliveries (endpoint_id, event_id, subject, status, created_at, next_attempt_at)
           SELECT w.id, e.id, e.subject, 'pending', $4::timestamptz, $4::timestamptz FROM event e JOIN webhook_endpoints w ON w.account_id = $1
           WHERE CASE WHEN $3::text IS NULL
                      THEN w.status = 'enabled' AND (w.event_types IS NULL OR (' ' || w.event_types || ' ') LIKE '% ' || e.type || ' %')
                      ELSE w.id = $3 END
           RETURNING 1)
         SELECT EXISTS (SELECT 1 FROM event) AS found, (SELECT count(*) FROM queued)::integer AS queued`,
        [accountId, eventId, endpointId ?? null, now],
      );
      return row?.found === true ? row.queued : undefined;
    },
    async recover({ accountId, endpointId, since, now }) {
      const [row] = await sql<{ queued: number }>(
        `WITH queued AS (
           INSERT INTO webhook_deliveries (endpoint_id, event_id, subject, status, created_at, next_attempt_at)
           SELECT d.endpoint_id, d.event_id, d.subject, 'pending', $4::timestamptz, $4::timestamptz FROM webhook_deliveries d JOIN webhook_endpoints w ON w.id = d.endpoint_id
           WHERE w.account_id = $1 AND d.endpoint_id = $2 AND d.status = 'failed' AND d.last_attempt_at >= $3::timestamptz ORDER BY d.seq
           RETURNING 1)
         SELECT count(*)::integer AS queued FROM queued`,
        [accountId, endpointId, since, now],
      );
      return row?.queued ?? 0;
    },
    async oldestDueAt() {
      // What the claim would take, in due order: the due index, stopping at the
      // first delivery of an enabled endpoint with no earlier one of its
      // subject pending (a held-back delivery waits for its receiver, not the engine).
      // And the events no claim has made a delivery of yet: a stalled engine shows.
      const [row] = await sql<{ next_attempt_at: string | null }>(
        `SELECT ${isoTimestamp('next_attempt_at')} FROM (
           SELECT least((SELECT d.next_attempt_at FROM webhook_deliveries d JOIN webhook_endpoints w ON w.id = d.endpoint_id
                         WHERE d.status = 'pending' AND w.status = 'enabled'
                           AND NOT EXISTS (SELECT 1 FROM webhook_deliveries p
                                           WHERE p.endpoint_id = d.endpoint_id AND p.subject = d.subject AND p.status = 'pending' AND p.seq < d.seq)
                         ORDER BY d.next_attempt_at LIMIT 1), ${OLDEST_UNMATERIALIZED}) AS next_attempt_at) due`,
      );
      return row?.next_attempt_at ?? undefined;
    },
    materializeDeliveries: () => materializeDeliveries(sql),
    async claimDue({ claimant, now, claimedUntil, limit, inFlight = new Map(), windows = new Map(), perDestination = limit }) {
      // The deliveries of the events written since (postgres-webhook-cursors.ts),
      // then CLAIM_DELIVERIES (postgres-webhook-claims.ts): two statements,
      // since a statement does not see the rows its own CTEs insert.
      await materializeDeliveries(sql);
      const rows = await sql<ClaimedDeliveryRow>(
        CLAIM_DELIVERIES,
        [claimant, claimedUntil, now, limit, perDestination, JSON.stringify(Object.fromEntries(inFlight)), JSON.stringify(Object.fromEntries(windows))],
      );
      return rows.map(toClaimedDelivery);
    },
    async markSent(settlement) {
      const { id, claimant, at, statusCode, durationMs } = settlement;
      const usage = deliveryUsageCte({ sent: true, settlement }, 10);
      const [row] = await sql<{ settled: boolean }>(
        `WITH settled AS (
           UPDATE webhook_deliveries SET status = 'succeeded', claimed_by = NULL, last_attempt_at = $3, last_status_code = $4, last_error = NULL, last_duration_ms = $5
           WHERE seq = $1 AND claimed_by = $2 AND status = 'pending' RETURNING endpoint_id),
         healthy AS (UPDATE webhook_endpoints SET failing_since = NULL WHERE id IN (SELECT endpoint_id FROM settled) AND failing_since IS NOT NULL RETURNING 1),
         -- The attempt's record (what was sent and what came back), when there is one.
         attempt AS (
           INSERT INTO webhook_delivery_attempts (delivery_seq, attempt, at, duration_ms, status_code, request_headers, response_headers, response_body)
           SELECT $1::bigint, $6::integer, $3::timestamptz, $5::integer, $4::integer, $7::text, $8::text, $9::text FROM settled WHERE $6::integer IS NOT NULL
           ON CONFLICT (delivery_seq, attempt) DO NOTHING RETURNING 1),
         ${usage.cte}
         SELECT EXISTS (SELECT 1 FROM settled) AS settled`,
        [id, claimant, at, statusCode ?? null, durationMs ?? null, ...(attemptColumns(settlement) ?? [null, null, null, null]), ...usage.values],
      );
      return row?.settled === true;
    },
    async markAttemptFailed(settlement) {
      const { id, claimant, at, error, statusCode, durationMs, retryAt, gone } = settlement;
      const cutoff = new Date(Date.parse(at) - FAILING_ENDPOINT_DISABLED_AFTER_MS).toISOString();
      const usage = deliveryUsageCte({ sent: false, settlement }, 14);
      // `current` locks the endpoint and reads its latest committed status
      // (FOR UPDATE waits for a concurrent settlement of the same endpoint),
      // so of two attempts failing at once exactly one sees the endpoint go
      // from enabled to disabled, and only that one writes the audit entry,
      // in this same transaction.
      return transaction(async (tx) => {
        const [row] = await tx<{ account_id: string; endpoint_id: string; was: string; status: string }>(
          `WITH settled AS (
             UPDATE webhook_deliveries SET status = $4, next_attempt_at = coalesce($5::timestamptz, $3::timestamptz), claimed_by = NULL, last_attempt_at = $3::timestamptz,
               last_status_code = $6, last_error = $7, last_duration_ms = $8
             WHERE seq = $1 AND claimed_by = $2 AND status = 'pending' RETURNING endpoint_id),
           current AS (SELECT id, status FROM webhook_endpoints WHERE id IN (SELECT endpoint_id FROM settled) FOR UPDATE),
           endpoint AS (
             UPDATE webhook_endpoints w SET failing_since = coalesce(w.failing_since, $3::timestamptz),
               status = CASE WHEN $9::boolean OR coalesce(w.failing_since, $3::timestamptz) <= $10::timestamptz THEN 'disabled' ELSE w.status END,
               disabled_reason = CASE WHEN $9::boolean THEN $11
                                      WHEN coalesce(w.failing_since, $3::timestamptz) <= $10::timestamptz AND w.status = 'enabled' THEN $12
                                      ELSE w.disabled_reason END,
               paused_until = greatest(w.paused_until, $13::timestamptz)
             FROM current c WHERE w.id = c.id RETURNING w.id, w.account_id, c.status AS was, w.status),
           ${usage.cte}
           SELECT s.endpoint_id, e.account_id::text, e.was, e.status FROM settled s LEFT JOIN endpoint e ON e.id = s.endpoint_id`,
          [
            id,
            claimant,
            at,
            retryAt === undefined ? 'failed' : 'pending',
            retryAt ?? null,
            statusCode ?? null,
            error,
            durationMs ?? null,
            gone === true,
            cutoff,
            GONE_REASON,
            FAILING_REASON,
            settlement.pauseUntil ?? null,
            ...usage.values,
          ],
        );
        if (row === undefined) return false;
        await recordAttempt(tx, settlement);
        if (row.was === 'enabled' && row.status === 'disabled') {
          const endpoint = { id: row.endpoint_id, accountId: Number(row.account_id) };
          await startNotice(tx, endpoint.id, at, gone === true ? 'gone' : 'failing');
          await insertAuditEntries(tx, [endpointDisabledEntry(endpoint, at, gone === true ? GONE_REASON : FAILING_REASON)]);
        }
        return true;
      });
    },
    async release({ id, claimant, at }) {
      const rows = await sql(
        `UPDATE webhook_deliveries SET next_attempt_at = $1, claimed_by = NULL, attempts = attempts - 1
         WHERE seq = $2 AND claimed_by = $3 AND status = 'pending' RETURNING seq`,
        [at, id, claimant],
      );
      return rows.length > 0;
    },
  };
}
