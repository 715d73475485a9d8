import type { EventDelivery } from '../../webhooks/webhooks-repository.js';
import { toDelivery, type DeliveryRow } from '../webhook-rows.js';
import type { Prepare } from './sqlite-util.js';

/**
 * WebhooksRepository.listEventDeliveries on SQLite: the deliveries of the
 * account's events, by the index on webhook_deliveries(event_id). The ids go
 * in as one JSON array, so that every count of ids is one cached statement.
 */
export function listEventDeliveries(sql: Prepare, accountId: number, eventIds: readonly string[], limit: number): EventDelivery[] {
  if (eventIds.length === 0) return [];
  const rows = sql(
    `SELECT d.seq, d.event_id, d.status, d.created_at, d.attempts, d.last_attempt_at, d.last_status_code, d.last_error, d.last_duration_ms, d.next_attempt_at,
       w.id AS endpoint_id, w.url AS endpoint_url
     FROM webhook_deliveries d JOIN webhook_endpoints w ON w.id = d.endpoint_id
     WHERE d.event_id IN (SELECT value FROM json_each(?)) AND w.account_id = ? ORDER BY d.seq LIMIT ?`,
  ).all(JSON.stringify(eventIds), accountId, limit) as (DeliveryRow & { endpoint_id: string; endpoint_url: string })[];
  return rows.map((row) => ({ ...toDelivery(row), endpointId: row.endpoint_id, endpointUrl: row.endpoint_url }));
}
