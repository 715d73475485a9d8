import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { DisabledEndpointNotice } from '../../../webhooks/notices/webhook-notices-repository.js';
import { portalAuditContext } from '../portal-audit.js';
import { csrfField, formField, type PortalContext } from '../portal-context.js';
import { formatInstant } from '../portal-format.js';
import { safeNext, signedInUser } from '../portal-session.js';
import { EndpointParams } from './webhooks-pages.js';

/** What the layout shows of the account's failure notices (partials/webhook-notices.eta). */
export interface WebhookNoticesView {
  notices: { endpointId: string; url: string; reason: string; when: string }[];
  /** Where acknowledging one comes back to: the page itself when it was a GET, else the account page. */
  back: string;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The signed-in account's unacknowledged failure notices, read once per request (below); undefined outside the signed-in pages. */
    webhookNotices: WebhookNoticesView | undefined;
  }
}

const AcknowledgeForm = Type.Object({ _csrf: csrfField, next: Type.Optional(formField()) });

function noticeRow(notice: DisabledEndpointNotice) {
  return { endpointId: notice.endpointId, url: notice.url, reason: notice.reason, when: formatInstant(notice.disabledAt ?? undefined, 'an earlier date') };
}

/**
 * Failure notices (docs/webhooks.md): while an endpoint of the account is
 * disabled by the service (its receiver answered 410, or failed for 5 days)
 * and nobody acknowledged it, every signed-in page shows a notice naming
 * it, when and why, with a link to its page (to fix and enable it) and
 * **Acknowledge**. The notices are read once per request, by one indexed
 * query, before the handler runs, and kept on the request for the layout.
 */
export function registerWebhookNoticePages(scope: FastifyInstance, { services }: PortalContext): void {
  const app = scope.withTypeProvider<TypeBoxTypeProvider>();

  // After the session guard (registered before this), so only signed-in requests read them.
  app.addHook('onRequest', async (request: FastifyRequest) => {
    const notices = await services.webhookNotices.unacknowledged(signedInUser(request).user.accountId);
    request.webhookNotices = { notices: notices.map(noticeRow), back: request.method === 'GET' ? safeNext(request.url) : '/' };
  });

  app.post('/webhooks/:endpointId/acknowledge', { schema: { params: EndpointParams, body: AcknowledgeForm } }, async (request, reply) => {
    const { user } = signedInUser(request);
    // One acknowledged already (another tab, another user of the account) changes nothing: back to the page either way.
    await services.webhookNotices.acknowledge(user.accountId, request.params.endpointId, portalAuditContext(request, user));
    return reply.redirect(safeNext(request.body.next), 303);
  });
}
