import { NotFoundError } from '../../errors/errors.js';
import type { WebhooksRepository } from '../../webhooks/webhooks-repository.js';
import type { AttemptRecord, Settlement } from '../../delivery/delivery-queue.js';
import { insertAuditEntries } from './postgres-audit-repository.js';
import { isoTimestamp, type Sql, type Transaction } from './postgres-sql.js';
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

const ENDPOINT = `id, account_id, url, event_types, description, status, disabled_reason, ${isoTimestamp('created_at')}`;
const qualified = (alias: string, column: string) => `${isoTimestamp(`${alias}.${column}`).replace(/ AS .*$/, '')} AS ${column}`;
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
          `INSERT INTO webhook_endpoints (id, account_id, url, event_types, description, status, secret, created_at)
           VALUES ($1, $2, $3, $4, $5, 'enabled', $6, $7) RETURNING ${ENDPOINT}`,
          [endpoint.id, endpoint.accountId, endpoint.url, types, endpoint.description, endpoint.sealedSecret, endpoint.createdAt],
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
           failing_since = CASE WHEN $8 = 'enabled' THEN NULL ELSE failing_since END
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
    async oldestDueAt() {
      // What the claim would take, in due order: the due index, stopping at the
      // first delivery of an enabled endpoint with no earlier one of its
      // subject pending (a held-back delivery waits for its receiver, not the engine).
      const [row] = await sql<{ next_attempt_at: string }>(
        `SELECT ${qualified('d', 'next_attempt_at')} FROM webhook_deliveries d JOIN webhook_endpoints w ON w.id = d.endpoint_id
         WHERE d.status = 'pending' AND w.status = 'enabled'
           AND NOT EXISTS (SELECT 1 FROM webhook_deliveries p
                           WHERE p.endpoint_id = d.endpoint_id AND p.subject = d.subject AND p.status = 'pending' AND p.seq < d.seq)
         ORDER BY d.next_attempt_at LIMIT 1`,
      );
      return row?.next_attempt_at;
    },
    async claimDue({ claimant, now, claimedUntil, limit, inFlight = new Map(), windows = new Map(), perDestination = limit }) {
      // Per endpoint, so that no endpoint's backlog costs another anything:
      // the endpoints with pending deliveries (a loose index scan: one index
      // read per endpoint), and of each enabled one with room left of this
      // claimant's slots for it (one while it is failing), its first due
      // deliveries, at most that room; the earliest due of those, up to
      // `limit`. A delivery is due only when no earlier delivery of its
      // subject to its endpoint is still pending (one in flight is pending,
      // so its successor waits). SKIP LOCKED: concurrent claimers pass over
      // rows another one has locked, and a row another claimer took
      // meanwhile is no longer due when the lock is granted (PostgreSQL
      // checks the row again), so no row is taken twice.
      const rows = await sql<ClaimedDeliveryRow>(
        `WITH RECURSIVE pending_endpoints(id) AS (
           (SELECT endpoint_id FROM webhook_deliveries WHERE status = 'pending' ORDER BY endpoint_id LIMIT 1)
           UNION ALL
           SELECT (SELECT d.endpoint_id FROM webhook_deliveries d WHERE d.status = 'pending' AND d.endpoint_id > p.id ORDER BY d.endpoint_id LIMIT 1)
           FROM pending_endpoints p WHERE p.id IS NOT NULL),
         candidates AS (
           SELECT c.seq, c.due_at
           FROM pending_endpoints p JOIN webhook_endpoints w ON w.id = p.id AND w.status = 'enabled'
           LEFT JOIN (SELECT key AS endpoint_id, value::integer AS n FROM jsonb_each_text($6::jsonb)) b ON b.endpoint_id = w.id
           LEFT JOIN (SELECT key AS endpoint_id, value::integer AS n FROM jsonb_each_text($7::jsonb)) cap ON cap.endpoint_id = w.id
           CROSS JOIN LATERAL (
             SELECT d.seq, d.next_attempt_at AS due_at FROM webhook_deliveries d
             WHERE d.endpoint_id = w.id AND d.status = 'pending' AND d.next_attempt_at <= $3
               AND NOT EXISTS (SELECT 1 FROM webhook_deliveries p
                               WHERE p.endpoint_id = d.endpoint_id AND p.subject = d.subject AND p.status = 'pending' AND p.seq < d.seq)
             ORDER BY d.next_attempt_at, d.seq
             LIMIT greatest((CASE WHEN w.failing_since IS NULL THEN coalesce(cap.n, $5::integer) ELSE 1 END) - coalesce(b.n, 0), 0)) c),
         due AS (
           SELECT d.seq, c.due_at FROM candidates c JOIN webhook_deliveries d ON d.seq = c.seq
           WHERE d.status = 'pending' AND d.next_attempt_at <= $3
           ORDER BY c.due_at, c.seq LIMIT $4 FOR UPDATE OF d SKIP LOCKED),
         claimed AS (
           UPDATE webhook_deliveries u SET claimed_by = $1, next_attempt_at = $2, attempts = u.attempts + 1
           FROM due WHERE u.seq = due.seq
           RETURNING u.seq, u.attempts, u.endpoint_id, u.event_id, due.due_at)
         SELECT c.seq::text AS seq, c.attempts, c.endpoint_id, c.event_id, w.url, w.secret, w.previous_secret,
                ${qualified('w', 'previous_secret_until')}, e.payload, ${qualified('c', 'due_at')}
         FROM claimed c JOIN webhook_endpoints w ON w.id = c.endpoint_id JOIN events e ON e.id = c.event_id ORDER BY c.seq`,
        [claimant, claimedUntil, now, limit, perDestination, JSON.stringify(Object.fromEntries(inFlight)), JSON.stringify(Object.fromEntries(windows))],
      );
      return rows.map(toClaimedDelivery);
    },
    async markSent(settlement) {
      const { id, claimant, at, statusCode, durationMs } = settlement;
      const [row] = await sql<{ settled: boolean }>(
        `WITH settled AS (
           UPDATE webhook_deliveries SET status = 'succeeded', claimed_by = NULL, last_attempt_at = $3, last_status_code = $4, last_error = NULL, last_duration_ms = $5
           WHERE seq = $1 AND claimed_by = $2 AND status = 'pending' RETURNING endpoint_id),
         healthy AS (UPDATE webhook_endpoints SET failing_since = NULL WHERE id IN (SELECT endpoint_id FROM settled) AND failing_since IS NOT NULL RETURNING 1),
         -- The attempt's record (what was sent and what came back), when there is one.
         attempt AS (
           INSERT INTO webhook_delivery_attempts (delivery_seq, attempt, at, duration_ms, status_code, request_headers, response_headers, response_body)
           SELECT $1::bigint, $6::integer, $3::timestamptz, $5::integer, $4::integer, $7::text, $8::text, $9::text FROM settled WHERE $6::integer IS NOT NULL
           ON CONFLICT (delivery_seq, attempt) DO NOTHING RETURNING 1)
         SELECT EXISTS (SELECT 1 FROM settled) AS settled`,
        [id, claimant, at, statusCode ?? null, durationMs ?? null, ...(attemptColumns(settlement) ?? [null, null, null, null])],
      );
      return row?.settled === true;
    },
    async markAttemptFailed(settlement) {
      const { id, claimant, at, error, statusCode, durationMs, retryAt, gone } = settlement;
      const cutoff = new Date(Date.parse(at) - FAILING_ENDPOINT_DISABLED_AFTER_MS).toISOString();
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
                                      ELSE w.disabled_reason END
             FROM current c WHERE w.id = c.id RETURNING w.id, w.account_id, c.status AS was, w.status)
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
          ],
        );
        if (row === undefined) return false;
        await recordAttempt(tx, settlement);
        if (row.was === 'enabled' && row.status === 'disabled') {
          const endpoint = { id: row.endpoint_id, accountId: Number(row.account_id) };
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
