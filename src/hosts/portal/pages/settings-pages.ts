import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { PortalContext } from '../portal-context.js';
import { csrfField, formField } from '../portal-context.js';
import { recordPortalAction, recordUserEvent } from '../portal-audit.js';
import { PASSKEY_CONFIRM_PATH, passkeyAssertedUser, passkeyRows } from './passkey-pages.js';
import { sessionsSection } from './sessions-pages.js';
import { signedInUser } from '../portal-session.js';
import { confirmationFields, askedToConfirm } from '../portal-reauthentication.js';
import { spendAttempt } from './sign-in-pages.js';
import { twoStepSection } from './two-step-pages.js';

const PasswordForm = Type.Object({ _csrf: csrfField, currentPassword: formField(), newPassword: formField() });
const EmptyForm = Type.Object({ _csrf: csrfField });
const ConfirmedForm = Type.Object({ _csrf: csrfField, ...confirmationFields });
/** `confirmPasskey`: a passkey assertion standing for the password (portal/static/passkeys.js). */
const EmailForm = Type.Object({ _csrf: csrfField, newEmail: formField(), emailPassword: formField(), confirmPasskey: confirmationFields.confirmPasskey });
const PASSKEY_REFUSED = { ok: false, field: 'currentPassword', message: 'That passkey did not confirm it is you. Try again, or type your password.' } as const;
const SettingsQuery = Type.Object({
  passkey: Type.Optional(Type.String({ maxLength: 10 })),
  sessions: Type.Optional(Type.String({ maxLength: 10 })),
  'two-step': Type.Optional(Type.String({ maxLength: 20 })),
});

/** What the two-step section says after a redirect here. */
function twoStepNotice(query: { 'two-step'?: string }): string | undefined {
  if (query['two-step'] === 'required') return 'This portal requires two-step sign-in. Set it up to continue: the rest of the portal opens once it is on.';
  if (query['two-step'] === 'on') return 'Two-step sign-in is on.';
  if (query['two-step'] === 'off') return 'Two-step sign-in is off. Your password alone signs you in again.';
  if (query['two-step'] === 'recovery-code-used') return 'You signed in with a recovery code, which works only once. If your phone is lost, make new recovery codes, or turn two-step sign-in off and set it up again on a new phone.';
  return undefined;
}

/**
 * `/settings` (signed in): change the password (with the current one; other
 * sessions end), change the email address (with the current password or a
 * passkey; it changes when the link mailed to the new address is followed),
 * sign out everywhere (after a recent authentication,
 * portal-reauthentication.ts); and `POST /sign-out`. The password typed to
 * prove who one is counts against the sign-in throttle, and a right one
 * restarts the re-authentication window.
 */
export function registerSettingsPages(scope: FastifyInstance, context: PortalContext): void {
  const { render, services, sessions, origin, throttle } = context;
  const app = scope.withTypeProvider<TypeBoxTypeProvider>();

  app.get('/settings', { schema: { querystring: SettingsQuery } }, async (request, reply) => {
    const signedIn = signedInUser(request);
    const { user } = signedIn;
    const passkeys = await passkeyRows(services, user.id);
    const passkeyAdded = request.query.passkey === 'added';
    const passkeyConfirmed = request.query.passkey === 'confirmed';
    // After a change of the user's factors (a passkey added, two-step sign-in on or off): offer to end the other sessions (ASVS 5.0 7.4.3).
    const factorsChanged = passkeyAdded || request.query['two-step'] === 'on' || request.query['two-step'] === 'off';
    const sessionsView = await sessionsSection(services, signedIn, { notice: request.query.sessions, offerEndOthers: factorsChanged });
    const twoStepView = { ...(await twoStepSection(services, user.id)), twoStepNotice: twoStepNotice(request.query) };
    return render(request, reply, 'settings', { title: 'Settings', email: user.email, changed: false, passkeys, passkeyAdded, passkeyConfirmed, ...sessionsView, ...twoStepView });
  });

  // Registering a passkey after the re-authentication window (passkey-pages.ts refuses it): confirm here, then register within the window.
  app.post(PASSKEY_CONFIRM_PATH, { schema: { body: ConfirmedForm } }, async (request, reply) => {
    if (await askedToConfirm(context, request, reply, 'add a passkey')) return reply;
    return reply.redirect('/settings?passkey=confirmed#passkeys-heading', 303);
  });

  app.post('/settings/email', { schema: { body: EmailForm } }, async (request, reply) => {
    const signedIn = signedInUser(request);
    const { user } = signedIn;
    const byPasskey = (request.body.confirmPasskey ?? '') !== '';
    await spendAttempt(context, request, byPasskey ? {} : { email: user.email });
    const passkeyUserId = byPasskey ? await passkeyAssertedUser(context, request.body.confirmPasskey) : undefined;
    const result =
      byPasskey && passkeyUserId !== user.id
        ? PASSKEY_REFUSED
        : await services.emailVerification.requestChange({
            userId: user.id,
            currentPassword: request.body.emailPassword,
            ...(passkeyUserId === undefined ? {} : { passkeyUserId }),
            newEmail: request.body.newEmail,
            origin: origin(),
          });
    if (result.ok || result.field !== 'currentPassword') await proven(request, byPasskey);
    const passkeys = await passkeyRows(services, user.id);
    const sessionsView = { ...(await sessionsSection(services, signedIn, {})), ...(await twoStepSection(services, user.id)) };
    reply.header('cache-control', 'no-store');
    if (!result.ok) {
      const view = { title: 'Settings', email: user.email, changed: false, passkeys, emailError: result, newEmail: request.body.newEmail, ...sessionsView };
      return render(request, reply, 'settings', view, 400);
    }
    const target = { kind: 'user', id: String(user.id) } as const;
    await recordUserEvent(services.team, request, user, 'user_email_change_requested', { target, details: { to: result.newEmail.slice(0, 200) } });
    return render(request, reply, 'settings', { title: 'Settings', email: user.email, changed: false, passkeys, emailRequested: result.newEmail, ...sessionsView });
  });

  app.post('/settings/password', { schema: { body: PasswordForm } }, async (request, reply) => {
    const { user, sessionIdHash } = signedInUser(request);
    await spendAttempt(context, request, { email: user.email });
    const result = await services.users.changePassword({
      userId: user.id,
      current: request.body.currentPassword,
      next: request.body.newPassword,
      keepSession: sessionIdHash,
      origin: origin(),
    });
    const passkeys = await passkeyRows(services, user.id);
    if (result.ok || result.field !== 'currentPassword') await proven(request, false);
    const sessionsView = { ...(await sessionsSection(services, signedInUser(request), { offerEndOthers: result.ok })), ...(await twoStepSection(services, user.id)) };
    if (!result.ok) return render(request, reply, 'settings', { title: 'Settings', email: user.email, error: result, changed: false, passkeys, ...sessionsView }, 400);
    await recordUserEvent(services.team, request, user, 'authn_password_change');
    return render(request, reply, 'settings', { title: 'Settings', email: user.email, changed: true, passkeys, ...sessionsView });
  });

  app.post('/settings/sign-out-everywhere', { schema: { body: ConfirmedForm } }, async (request, reply) => {
    if (await askedToConfirm(context, request, reply, 'sign out in every browser')) return reply;
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

  /** The user proved who they are (the password or passkey was right): the throttle forgets the attempt, the re-authentication window starts again. */
  async function proven(request: FastifyRequest, byPasskey: boolean): Promise<void> {
    const signedIn = signedInUser(request);
    await throttle.succeeded(byPasskey ? { address: request.ip } : { email: signedIn.user.email, address: request.ip });
    await services.sessions.confirmed(signedIn);
  }
}
