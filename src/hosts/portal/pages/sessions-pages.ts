import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Services } from '../../../services.js';
import type { SignedIn } from '../../../users/sessions-service.js';
import { recordPortalAction } from '../portal-audit.js';
import type { PortalContext } from '../portal-context.js';
import { csrfField } from '../portal-context.js';
import { formatInstant } from '../portal-format.js';
import { signedInUser } from '../portal-session.js';
import { confirmationFields, askedToConfirm } from '../portal-reauthentication.js';

/** A session's public handle: 128 bits in hex, as sessions-service makes it. */
const EndForm = Type.Object({ _csrf: csrfField, session: Type.String({ pattern: '^[0-9a-f]{32}$' }), ...confirmationFields });
const ConfirmedForm = Type.Object({ _csrf: csrfField, ...confirmationFields });

/** What /settings says after a redirect from the Sessions section (`?sessions=…`). */
const NOTICES: Readonly<Record<string, string>> = {
  ended: 'That session has ended: its browser is signed out.',
  others: 'Every other session has ended: only this browser is still signed in.',
};

/**
 * The Sessions section of /settings: the user's live sessions (this one
 * marked), the notice of `?sessions=`, and whether the page offers to end
 * the others (`offerEndOthers`, after a sign-in factor changed: ASVS 5.0
 * 7.4.3). Handles only, never a session id or its hash.
 */
export async function sessionsSection(
  services: Pick<Services, 'sessions'>,
  signedIn: SignedIn,
  { notice, offerEndOthers = false }: { notice?: string | undefined; offerEndOthers?: boolean } = {},
) {
  const sessions = (await services.sessions.list(signedIn)).map((session) => ({
    handle: session.handle,
    device: session.device === '' ? 'Unknown browser' : session.device,
    address: session.address === '' ? '—' : session.address,
    signedIn: formatInstant(session.createdAt),
    lastSeen: formatInstant(session.lastSeenAt),
    current: session.current,
  }));
  const others = sessions.filter((session) => !session.current).length;
  return { sessions, otherSessions: others, sessionsNotice: notice === undefined ? undefined : NOTICES[notice], offerEndOthers: offerEndOthers && others > 0 };
}

/**
 * The Sessions section's actions (signed in): **End** one of the user's
 * other sessions by its handle, and **Sign out everywhere else**. Both are
 * forms (CSRF field and Origin, like every portal POST), need a recent
 * authentication (portal-reauthentication.ts: ASVS 5.0 7.5.2), and are audited as
 * `session_expired` with `details.reason` `revoked` (one, with the session
 * as the target) or `revoked_others` (with how many ended).
 */
export function registerSessionsPages(scope: FastifyInstance, context: PortalContext): void {
  const { render, services } = context;
  const app = scope.withTypeProvider<TypeBoxTypeProvider>();

  app.post('/settings/sessions/end', { schema: { body: EndForm } }, async (request, reply) => {
    if (await askedToConfirm(context, request, reply, 'end that session')) return reply;
    const signedIn = signedInUser(request);
    const handle = request.body.session;
    const current = (await services.sessions.list(signedIn)).some((session) => session.current && session.handle === handle);
    // This browser's own session is ended by Sign out; another user's handle, or one already ended, is not found.
    const ended = !current && (await services.sessions.endByHandle(signedIn.user.id, handle));
    if (!ended) {
      const message = 'That session has already ended, or is not one of yours. Settings lists your sessions.';
      return render(request, reply, 'error', { title: 'Session not found', message, status: 404, requestId: request.id }, 404);
    }
    await recordPortalAction(services.audit, request, signedIn.user, 'session_expired', { target: { kind: 'session', id: handle }, details: { reason: 'revoked' } });
    return reply.redirect('/settings?sessions=ended#sessions-heading', 303);
  });

  app.post('/settings/sessions/end-others', { schema: { body: ConfirmedForm } }, async (request, reply) => {
    if (await askedToConfirm(context, request, reply, 'sign out everywhere else')) return reply;
    const { user, sessionIdHash } = signedInUser(request);
    const count = await services.sessions.endAll(user.id, sessionIdHash);
    await recordPortalAction(services.audit, request, user, 'session_expired', { details: { reason: 'revoked_others', count } });
    return reply.redirect('/settings?sessions=others#sessions-heading', 303);
  });
}
