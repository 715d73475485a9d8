import type Database from 'better-sqlite3';
import type { SystemDisableReason, WebhookNoticesRepository } from '../../webhooks/notices/webhook-notices-repository.js';
import { NOTICE_DUE, toNotice, type NoticeRow } from '../webhook-notice-rows.js';
import { statementCache, type Prepare } from './sqlite-util.js';

const NOTICE_COLUMNS = 'id, url, disabled_reason, system_disabled_at';

export function createSqliteWebhookNoticesRepository(db: Database.Database): WebhookNoticesRepository {
  const sql = statementCache(db);
  return {
    async listUnacknowledged(accountId) {
      const rows = sql(`SELECT ${NOTICE_COLUMNS} FROM webhook_endpoints WHERE account_id = ? AND ${NOTICE_DUE} ORDER BY id`).all(accountId) as NoticeRow[];
      return rows.map(toNotice);
    },
    async acknowledge({ accountId, endpointId, userId, at }) {
      const row = sql(
        `UPDATE webhook_endpoints SET notice_acknowledged_at = ?, notice_acknowledged_by = ?
         WHERE account_id = ? AND id = ? AND ${NOTICE_DUE} RETURNING ${NOTICE_COLUMNS}`,
      ).get(at, userId, accountId, endpointId) as NoticeRow | undefined;
      return row && toNotice(row);
    },
  };
}

/**
 * The settlements' side of the notices (sqlite-webhooks-repository.ts): the
 * notice each disabling starts, and what a settling transaction disabled,
 * told to `tell` once it has committed.
 */
export function systemDisablings(sql: Prepare, tell: (reason: SystemDisableReason) => void) {
  const pending: SystemDisableReason[] = [];
  return {
    /** In the transaction that disables the endpoint: a new notice, unacknowledged, from `at`. */
    started(endpointId: string, at: string, reason: SystemDisableReason): void {
      sql('UPDATE webhook_endpoints SET system_disabled_at = ?, notice_acknowledged_at = NULL, notice_acknowledged_by = NULL WHERE id = ?').run(at, endpointId);
      pending.push(reason);
    },
    /**
     * Runs a settling transaction (better-sqlite3's are synchronous: it has
     * committed when it returns) and then tells each disabling it made;
     * nothing when it threw, since it rolled back.
     */
    committed<R>(settle: () => R): R {
      pending.length = 0;
      const result = settle();
      for (const reason of pending.splice(0)) tell(reason);
      return result;
    },
  };
}
