import type { AuditContext } from '../../audit/audit-repository.js';
import type { AuditRecorder } from '../../audit/audit-service.js';
import type { Clock } from '../../shared/clock.js';
import type { DisabledEndpointNotice, WebhookNoticesRepository } from './webhook-notices-repository.js';

/** Who acknowledges a notice: a user of the account (the portal shows notices), from their address. */
export type NoticeAcknowledger = AuditContext & { actor: { kind: 'user'; id: number } };

/**
 * The failure notices of webhook endpoints (docs/webhooks.md): an endpoint
 * the service disabled, because its receiver answered 410 or failed for 5
 * days, stays a notice of its account until a user acknowledges it or the
 * endpoint is enabled again; the next disabling is a new notice.
 */
export function createWebhookNoticesService({ webhookNoticesRepository, clock, audit }: { webhookNoticesRepository: WebhookNoticesRepository; clock: Clock; audit: AuditRecorder }) {
  return {
    /** The account's unacknowledged notices: one indexed read, cheap enough for every portal page. */
    unacknowledged(accountId: number): Promise<DisabledEndpointNotice[]> {
      return webhookNoticesRepository.listUnacknowledged(accountId);
    },

    /**
     * Acknowledges the notice of the account's endpoint, recording who and
     * when, and an audit entry (`webhook_endpoint_notice_acknowledged`).
     * Returns whether there was a notice to acknowledge: acknowledging one
     * already acknowledged (another tab, another user) changes nothing.
     */
    async acknowledge(accountId: number, endpointId: string, by: NoticeAcknowledger): Promise<boolean> {
      const at = clock.now().toISOString();
      const notice = await webhookNoticesRepository.acknowledge({ accountId, endpointId, userId: by.actor.id, at });
      if (notice === undefined) return false;
      await audit.recordAfterChange({
        ...by,
        accountId,
        action: 'webhook_endpoint_notice_acknowledged',
        target: { kind: 'webhook_endpoint', id: endpointId },
        details: { reason: notice.reason },
      });
      return true;
    },
  };
}

export type WebhookNoticesService = ReturnType<typeof createWebhookNoticesService>;
