import type { DisabledEndpointNotice } from '../webhooks/notices/webhook-notices-repository.js';

/**
 * The notice of an endpoint the service disabled is due while the endpoint
 * is disabled with a reason (only the service sets one; enabling clears it)
 * and nobody acknowledged it since that disabling. Both adapters read and
 * acknowledge by this one condition.
 */
export const NOTICE_DUE = "status = 'disabled' AND disabled_reason IS NOT NULL AND notice_acknowledged_at IS NULL";

export interface NoticeRow {
  id: string;
  url: string;
  disabled_reason: string;
  system_disabled_at: string | null;
}

export function toNotice(row: NoticeRow): DisabledEndpointNotice {
  return { endpointId: row.id, url: row.url, reason: row.disabled_reason, disabledAt: row.system_disabled_at };
}
