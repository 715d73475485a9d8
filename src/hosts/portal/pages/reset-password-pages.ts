import { recordUserEvent } from '../portal-audit.js';
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { PortalContext } from '../portal-context.js';
import { csrfField, formField } from '../portal-context.js';
import { normaliseEmail } from '../../../users/user-input.js';
import { passkeyAssertedUser } from './passkey-pages.js';
import { spendAttempt } from './sign-in-pages.js';

const ResetQuery = Type.Object({ token: Type.Optional(Type.String({ maxLength: 200 })) });
/** `passkey`: the assertion that confirms the reset (JSON, put there by portal/static/passkeys.js), when the page asks for it. */
const ResetForm = Type.Object({ _csrf: csrfField, token: formField(), password: formField(), passkey: Type.Optional(Type.String({ maxLength: 32_768 })), code: Type.Optional(formField()) });
const ForgotForm = Type.Object({ _csrf: csrfField, email: formField() });

/**
 * `/forgot-password` (public): asks for an email and mails its user a
 * one-time reset link; the answer is the same page, in the same time,
 * whether or not the email has a user (users-service.ts). Each request is
 * an attempt of the client address and of the email (the sign-in throttle).
 * `/reset-password?token=…` (public): the page the mailed link, or an
 * operator's `users reset-password` link, opens; a link the user asked for
 * also asks for their passkey when they have one, or a code of their
 * authenticator app when two-step sign-in is on (either, when both).
 */
export function registerResetPasswordPages(scope: FastifyInstance, context: PortalContext): void {
  const app = scope.withTypeProvider<TypeBoxTypeProvider>();
  const { render, services, origin } = context;

  app.get('/forgot-password', async (request, reply) => {
    reply.header('cache-control', 'no-store');
    return render(request, reply, 'forgot-password', { title: 'Forgot password', sent: false });
  });

  app.post('/forgot-password', { schema: { body: ForgotForm } }, async (request, reply) => {
    await spendAttempt(context, request, { email: normaliseEmail(request.body.email) });
    await services.users.requestPasswordReset({ email: request.body.email, origin: origin() });
    reply.header('cache-control', 'no-store');
    return render(request, reply, 'forgot-password', { title: 'Forgot password', sent: true });
  });

  app.get('/reset-password', { schema: { querystring: ResetQuery } }, async (request, reply) => {
    reply.header('cache-control', 'no-store');
    const token = request.query.token ?? '';
    const reset = await services.users.peekReset(token);
    const valid = reset !== undefined;
    const factors = { passkeyRequired: reset?.passkeyRequired ?? false, codeRequired: reset?.codeRequired ?? false };
    return render(request, reply, 'reset-password', { title: 'Choose a new password', token: valid ? token : '', valid, ...factors }, valid ? 200 : 400);
  });

  app.post('/reset-password', { schema: { body: ResetForm } }, async (request, reply) => {
    // A link that asks for a code: each code typed is an attempt of the user's email too, as at sign-in (5 per 15 minutes).
    const asked = await services.users.peekReset(request.body.token);
    await spendAttempt(context, request, asked?.codeRequired === true ? { email: asked.email } : {});
    const passkeyUserId = await passkeyAssertedUser(context, request.body.passkey);
    const { token, password, code } = request.body;
    const result = await services.users.resetPassword({ token, password, origin: origin(), ...(passkeyUserId === undefined ? {} : { passkeyUserId }), ...(code === undefined ? {} : { code }) });
    if (!result.ok) {
      reply.header('cache-control', 'no-store');
      const valid = result.field === 'password' || result.field === 'passkey' || result.field === 'code';
      const reset = valid ? await services.users.peekReset(token) : undefined;
      const factors = { passkeyRequired: reset?.passkeyRequired === true, codeRequired: reset?.codeRequired === true };
      return render(request, reply, 'reset-password', { title: 'Choose a new password', token: valid ? token : '', valid, ...factors, error: result }, 400);
    }
    // The user is not signed in here: the entry is theirs, from this address, marked as a reset, in each of their accounts.
    await recordUserEvent(services.team, request, result.user, 'authn_password_change', { details: { reason: 'reset' } });
    return reply.redirect('/sign-in?reset=1', 303);
  });
}
