import type { StoredEvent } from '../events/events-repository.js';
import type { EventType } from '../events/event-types.js';

/** An events row as both adapters select it (created_at as ISO 8601 text), mapped in one place so both databases answer alike. */
export interface EventRow {
  account_id: bigint;
  position: bigint;
  id: string;
  type: EventType;
  subject: string;
  created_at: string;
  payload: string;
}

export function toStoredEvent(row: EventRow): StoredEvent {
  return {
    id: row.id,
    accountId: Number(row.account_id),
    position: row.position,
    type: row.type,
    subject: row.subject,
    createdAt: row.created_at,
    payload: row.payload,
  };
}
