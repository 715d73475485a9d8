import type { SystemDisableReason, WebhookNoticesRepository } from '../../webhooks/notices/webhook-notices-repository.js';
import { NOTICE_DUE, toNotice, type NoticeRow } from '../webhook-notice-rows.js';
import { isoTimestamp, type Sql } from './postgres-sql.js';

const NOTICE_COLUMNS = `id, url, disabled_reason, ${isoTimestamp('system_disabled_at')}`;

export function createPostgresWebhookNoticesRepository(sql: Sql): WebhookNoticesRepository {
  return {
    async listUnacknowledged(accountId) {
      const rows = await sql<NoticeRow>(`SELECT ${NOTICE_COLUMNS} FROM webhook_endpoints WHERE account_id = $1 AND ${NOTICE_DUE} ORDER BY id COLLATE "C"`, [accountId]);
      return rows.map(toNotice);
    },
    async acknowledge({ accountId, endpointId, userId, at }) {
      const [row] = await sql<NoticeRow>(
        `UPDATE webhook_endpoints SET notice_acknowledged_at = $4, notice_acknowledged_by = $3
         WHERE account_id = $1 AND id = $2 AND ${NOTICE_DUE} RETURNING ${NOTICE_COLUMNS}`,
        [accountId, endpointId, userId, at],
      );
      return row && toNotice(row);
    },
  };
}

/** Transactions (their statement functions) that disabled endpoints, and why: the pool tells this process after their commit. */
const disabledIn = new WeakMap<Sql, SystemDisableReason[]>();

/**
 * In the transaction that disables the endpoint (postgres-webhooks-repository.ts):
 * a new notice, unacknowledged, from `at`; the disabling is told after the commit.
 */
export async function startNotice(tx: Sql, endpointId: string, at: string, reason: SystemDisableReason): Promise<void> {
  await tx('UPDATE webhook_endpoints SET system_disabled_at = $2, notice_acknowledged_at = NULL, notice_acknowledged_by = NULL WHERE id = $1', [endpointId, at]);
  disabledIn.set(tx, [...(disabledIn.get(tx) ?? []), reason]);
}

/** The disablings the committed transaction `tx` made (postgres-storage.ts's afterCommit). */
export function endpointsDisabledIn(tx: Sql): readonly SystemDisableReason[] {
  return disabledIn.get(tx) ?? [];
}
