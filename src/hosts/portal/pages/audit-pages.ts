import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { AuditAction, AuditActor, AuditEntry } from '../../../audit/audit-repository.js';
import { AppError } from '../../../errors/errors.js';
import type { PortalContext } from '../portal-context.js';
import { formatInstant } from '../portal-format.js';
import { signedInUser } from '../portal-session.js';

/** Entries per portal page. */
const PAGE_SIZE = 25;

/** What each recorded action means, in the words of the page. */
const ACTION_LABELS: Readonly<Record<AuditAction, string>> = {
  authn_login_success: 'Signed in',
  authn_login_fail: 'Sign-in failed',
  session_expired: 'Signed out',
  authn_password_change: 'Password changed',
  authn_passkey_added: 'Passkey added',
  authn_two_step_enabled: 'Two-step sign-in turned on',
  authn_recovery_codes_replaced: 'New recovery codes made',
  authn_two_step_disabled: 'Two-step sign-in turned off',
  authn_token_created: 'API key created',
  authn_token_rolled: 'API key rolled',
  authn_token_revoked: 'API key revoked',
  user_created: 'User created',
  user_disabled: 'User disabled',
  user_email_verified: 'Email address verified',
  user_email_change_requested: 'Change of email address asked for',
  user_email_changed: 'Email address changed',
  order_cancelled: 'Order cancelled',
  order_shipped: 'Order shipped',
  order_created: 'Order placed',
  webhook_endpoint_disabled: 'Webhook endpoint disabled',
  member_invited: 'Member invited',
  member_invitation_revoked: 'Invitation revoked',
  member_joined: 'Member joined',
  member_removed: 'Member removed',
  privilege_permissions_changed: 'Member role changed',
  authz_fail: 'Refused: role too low',
  webhook_endpoint_created: 'Webhook endpoint created',
  webhook_endpoint_updated: 'Webhook endpoint changed',
  webhook_endpoint_enabled: 'Webhook endpoint enabled',
  webhook_endpoint_deleted: 'Webhook endpoint deleted',
  webhook_secret_rotated: 'Webhook signing secret rotated',
  webhook_event_redelivered: 'Event redelivered',
  webhook_deliveries_recovered: 'Failed deliveries recovered',
  webhook_endpoint_notice_acknowledged: 'Notice of a disabled webhook endpoint acknowledged',
  account_deleted: 'Account deleted',
};

const AuditQuery = Type.Object({ cursor: Type.Optional(Type.String({ maxLength: 1000 })) });

function actorLabel(actor: AuditActor, you: number): string {
  switch (actor.kind) {
    case 'user':
      return actor.id === you ? 'you' : `user ${actor.id}`;
    case 'key':
      return `API key ${actor.id}`;
    case 'operator':
      return 'operator (CLI)';
    case 'system':
      return 'the service';
  }
}

function entryRow(entry: AuditEntry, you: number) {
  const target = entry.target === undefined ? '' : `${entry.target.kind.replace('_', ' ')} ${entry.target.id}`;
  return {
    at: formatInstant(entry.at),
    when: entry.at,
    action: ACTION_LABELS[entry.action],
    code: entry.action,
    actor: actorLabel(entry.actor, you),
    address: entry.address ?? '—',
    target,
    details: Object.entries(entry.details)
      .map(([name, value]) => `${name}: ${String(value)}`)
      .join(', '),
  };
}

/** `/audit` (signed in): the account's audit trail, newest first, paged by the audit service's signed cursor. */
export function registerAuditPages(scope: FastifyInstance, { render, services }: PortalContext): void {
  const app = scope.withTypeProvider<TypeBoxTypeProvider>();

  app.get('/audit', { schema: { querystring: AuditQuery } }, async (request, reply) => {
    const { user } = signedInUser(request);
    const cursor = request.query.cursor;
    try {
      const page = await services.audit.list(user.accountId, { limit: PAGE_SIZE, ...(cursor === undefined || cursor === '' ? {} : { cursor }) });
      return render(request, reply, 'audit', {
        title: 'Audit trail',
        entries: page.entries.map((entry) => entryRow(entry, user.id)),
        next: page.nextCursor === null ? undefined : `/audit?${new URLSearchParams({ cursor: page.nextCursor }).toString()}`,
        paged: cursor !== undefined,
      });
    } catch (error) {
      if (!(error instanceof AppError) || error.code !== 'invalid_cursor') throw error;
      return render(request, reply, 'audit', { title: 'Audit trail', entries: [], error: 'That page link is not valid any more. Start again from the first page.', paged: true }, 400);
    }
  });
}
