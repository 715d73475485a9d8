import type { EventDelivery } from '../../webhooks/webhooks-repository.js';
import { toDelivery, type DeliveryRow } from '../webhook-rows.js';
import { qualified, type Sql } from './postgres-sql.js';

/** WebhooksRepository.listEventDeliveries on PostgreSQL: the deliveries of the account's events, by the index on webhook_deliveries(event_id). */
export async function listEventDeliveries(sql: Sql, accountId: number, eventIds: readonly string[], limit: number): Promise<EventDelivery[]> {
  if (eventIds.length === 0) return [];
  const rows = await sql<DeliveryRow & { endpoint_id: string; endpoint_url: string }>(
    `SELECT d.seq::text AS seq, d.event_id, d.status, ${qualified('d', 'created_at')}, d.attempts, ${qualified('d', 'last_attempt_at')}, d.last_status_code,
       d.last_error, d.last_duration_ms, ${qualified('d', 'next_attempt_at')}, w.id AS endpoint_id, w.url AS endpoint_url
     FROM webhook_deliveries d JOIN webhook_endpoints w ON w.id = d.endpoint_id
     WHERE d.event_id = ANY ($1::text[]) AND w.account_id = $2 ORDER BY d.seq LIMIT $3`,
    [eventIds, accountId, limit],
  );
  return rows.map((row) => ({ ...toDelivery(row), endpointId: row.endpoint_id, endpointUrl: row.endpoint_url }));
}
