import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { PortalContext } from '../portal-context.js';
import { csrfField, formField } from '../portal-context.js';
import { recordPortalAction } from '../portal-audit.js';
import { passkeyRows } from './passkey-pages.js';
import { sessionsSection } from './sessions-pages.js';
import { signedInUser } from '../portal-session.js';

const PasswordForm = Type.Object({ _csrf: csrfField, currentPassword: formField(), newPassword: formField() });
const EmptyForm = Type.Object({ _csrf: csrfField });
const EmailForm = Type.Object({ _csrf: csrfField, newEmail: formField(), emailPassword: formField() });
const SettingsQuery = Type.Object({ passkey: Type.Optional(Type.String({ maxLength: 10 })), sessions: Type.Optional(Type.String({ maxLength: 10 })) });

/**
 * `/settings` (signed in): change the password (other sessions end), change
 * the email address (with the current password; it changes when the link
 * mailed to the new address is followed), sign out everywhere; and `POST /sign-out`.
 */
export function registerSettingsPages(scope: FastifyInstance, { render, services, sessions, origin }: PortalContext): void {
  const app = scope.withTypeProvider<TypeBoxTypeProvider>();

  app.get('/settings', { schema: { querystring: SettingsQuery } }, async (request, reply) => {
    const signedIn = signedInUser(request);
    const { user } = signedIn;
    const passkeys = await passkeyRows(services, user.id);
    const passkeyAdded = request.query.passkey === 'added';
    const sessionsView = await sessionsSection(services, signedIn, { notice: request.query.sessions, offerEndOthers: passkeyAdded });
    return render(request, reply, 'settings', { title: 'Settings', email: user.email, changed: false, passkeys, passkeyAdded, ...sessionsView });
  });

  app.post('/settings/email', { schema: { body: EmailForm } }, async (request, reply) => {
    const signedIn = signedInUser(request);
    const { user } = signedIn;
    const result = await services.emailVerification.requestChange({
      userId: user.id,
      currentPassword: request.body.emailPassword,
      newEmail: request.body.newEmail,
      origin: origin(),
    });
    const passkeys = await passkeyRows(services, user.id);
    const sessionsView = await sessionsSection(services, signedIn, {});
    reply.header('cache-control', 'no-store');
    if (!result.ok) {
      const view = { title: 'Settings', email: user.email, changed: false, passkeys, emailError: result, newEmail: request.body.newEmail, ...sessionsView };
      return render(request, reply, 'settings', view, 400);
    }
    const target = { kind: 'user', id: String(user.id) } as const;
    await recordPortalAction(services.audit, request, user, 'user_email_change_requested', { target, details: { to: result.newEmail.slice(0, 200) } });
    return render(request, reply, 'settings', { title: 'Settings', email: user.email, changed: false, passkeys, emailRequested: result.newEmail, ...sessionsView });
  });

  app.post('/settings/password', { schema: { body: PasswordForm } }, async (request, reply) => {
    const { user, sessionIdHash } = signedInUser(request);
    const result = await services.users.changePassword({
      userId: user.id,
      current: request.body.currentPassword,
      next: request.body.newPassword,
      keepSession: sessionIdHash,
    });
    const passkeys = await passkeyRows(services, user.id);
    const sessionsView = await sessionsSection(services, signedInUser(request), { offerEndOthers: result.ok });
    if (!result.ok) return render(request, reply, 'settings', { title: 'Settings', email: user.email, error: result, changed: false, passkeys, ...sessionsView }, 400);
    await recordPortalAction(services.audit, request, user, 'authn_password_change');
    return render(request, reply, 'settings', { title: 'Settings', email: user.email, changed: true, passkeys, ...sessionsView });
  });

  app.post('/settings/sign-out-everywhere', { schema: { body: EmptyForm } }, async (request, reply) => {
    const { user } = signedInUser(request);
    await services.sessions.endAll(user.id);
    await sessions.end(request, reply);
    await recordPortalAction(services.audit, request, user, 'session_expired', { details: { reason: 'revoked' } });
    return reply.redirect('/sign-in?signed-out=everywhere', 303);
  });

  app.post('/sign-out', { schema: { body: EmptyForm } }, async (request, reply) => {
    await sessions.end(request, reply);
    await recordPortalAction(services.audit, request, signedInUser(request).user, 'session_expired', { details: { reason: 'logout' } });
    return reply.redirect('/sign-in?signed-out=1', 303);
  });
}
