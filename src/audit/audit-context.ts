import type { AuditRecorder } from './audit-service.js';
import type { AuditContext } from './audit-repository.js';

/** The context of a change no one in particular asked for (the default of services' context arguments). */
export const SYSTEM_CONTEXT: AuditContext = Object.freeze({ actor: Object.freeze({ kind: 'system' as const }) });

/** The operator at the CLI: no client address. */
export const OPERATOR_CONTEXT: AuditContext = Object.freeze({ actor: Object.freeze({ kind: 'operator' as const }) });

/**
 * Records a committed order change. For a cancel this runs after the group
 * commit and outside it: the commit's SQL stays the one transaction of status
 * changes, and a failed audit write is reported (recordAfterChange) instead
 * of failing a cancel that has happened. Cancels arriving together share one
 * audit insert (the service's batcher).
 */
export function recordOrderChange(
  audit: AuditRecorder,
  context: AuditContext,
  accountId: number,
  orderId: bigint,
  action: 'order_cancelled' | 'order_shipped',
): Promise<void> {
  return audit.recordAfterChange({ ...context, accountId, action, target: { kind: 'order', id: orderId.toString() } });
}
