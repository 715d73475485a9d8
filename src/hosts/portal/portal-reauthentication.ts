import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { REAUTHENTICATION_WINDOW_MS } from '../../users/sessions-service.js';
import { recordPortalAction } from './portal-audit.js';
import type { PortalContext } from './portal-context.js';
import { formField } from './portal-context.js';
import { signedInUser } from './portal-session.js';
import { passkeyAssertedUser } from './pages/passkey-pages.js';
import { spendAttempt } from './pages/sign-in-pages.js';

/**
 * The fields a sensitive action's form may carry to confirm the user
 * (spread into its body schema): the password typed on the confirmation
 * page, or a passkey assertion (JSON, put there by portal/static/passkeys.js).
 */
export const confirmationFields = {
  confirmPassword: Type.Optional(formField()),
  confirmPasskey: Type.Optional(Type.String({ maxLength: 32_768 })),
  /** Present when the form is the confirmation page's: then an empty password is an error, not a first ask. */
  confirmStep: Type.Optional(Type.String({ maxLength: 1 })),
};

/** The fields the confirmation page does not carry over from the form it interrupts. */
const NOT_CARRIED = new Set(['_csrf', 'confirmPassword', 'confirmPasskey', 'confirmStep']);

const WRONG_PASSWORD = 'That password is incorrect.';
const NOTHING_TYPED = 'Type your password to continue.';
const PASSKEY_FAILED = 'That passkey did not confirm it is you. Try again, or type your password.';

/** The form fields to carry over to the confirmation page (string values only; never a password, which no sensitive form but this one carries). */
function carriedFields(body: unknown): { name: string; value: string }[] {
  if (typeof body !== 'object' || body === null) return [];
  return Object.entries(body).flatMap(([name, value]) => (NOT_CARRIED.has(name) || typeof value !== 'string' ? [] : [{ name, value }]));
}

/**
 * Re-authentication before a sensitive action (docs/portal.md,
 * "Re-authentication"; OWASP ASVS 5.0 7.5.2, 7.5.3): ending sessions and
 * changing the team proceed when the session's user proved who they are
 * within REAUTHENTICATION_WINDOW_MS (signing in, or a confirmation since),
 * or when the form carries a confirmation: their password (an attempt of
 * the email and address against the sign-in throttle, as a sign-in is) or
 * one of their passkeys. Otherwise the answer is the confirmation page,
 * which posts the same form again with the confirmation; a wrong password
 * or passkey gets that page again with the reason, status 401, and the
 * failure in the audit trail.
 *
 * Returns false when the action may proceed (a confirmation restarts the
 * window), true when the confirmation page was sent: the handler then
 * returns `reply`. (A boolean, not the reply: a reply is a thenable, which
 * an async function's return would wait for.)
 */
export async function askedToConfirm(context: PortalContext, request: FastifyRequest, reply: FastifyReply, action: string): Promise<boolean> {
  const { services, throttle } = context;
  const signedIn = signedInUser(request);
  const { user } = signedIn;
  const body = (typeof request.body === 'object' && request.body !== null ? request.body : {}) as { confirmPassword?: unknown; confirmPasskey?: unknown; confirmStep?: unknown };
  const password = typeof body.confirmPassword === 'string' ? body.confirmPassword : '';
  const passkey = typeof body.confirmPasskey === 'string' ? body.confirmPasskey : '';
  const hasPasskey = async () => (await services.passkeys.list(user.id)).length > 0;

  if (password !== '') {
    await spendAttempt(context, request, { email: user.email });
    const result = await services.users.signIn({ email: user.email, password });
    if (!result.ok || result.user.id !== user.id) {
      await recordPortalAction(services.audit, request, user, 'authn_login_fail', { details: { method: 'password', reauthentication: true } });
      askToConfirm(context, request, reply, action, await hasPasskey(), WRONG_PASSWORD);
      return true;
    }
    await throttle.succeeded({ email: user.email, address: request.ip });
    await confirmed(context, request, 'password');
    return false;
  }
  if (passkey !== '') {
    await spendAttempt(context, request);
    if ((await passkeyAssertedUser(context, passkey)) !== user.id) {
      await recordPortalAction(services.audit, request, user, 'authn_login_fail', { details: { method: 'passkey', reauthentication: true } });
      askToConfirm(context, request, reply, action, await hasPasskey(), PASSKEY_FAILED);
      return true;
    }
    await throttle.succeeded({ address: request.ip });
    await confirmed(context, request, 'passkey');
    return false;
  }
  if (services.sessions.recentlyAuthenticated(signedIn)) return false;
  askToConfirm(context, request, reply, action, await hasPasskey(), body.confirmStep === undefined ? undefined : NOTHING_TYPED);
  return true;
}

/** Records a confirmation in the session (the window starts again) and in the audit trail; the action proceeds. */
async function confirmed({ services }: PortalContext, request: FastifyRequest, method: 'password' | 'passkey'): Promise<void> {
  const signedIn = signedInUser(request);
  await services.sessions.confirmed(signedIn);
  await recordPortalAction(services.audit, request, signedIn.user, 'authn_login_success', { details: { method, reauthentication: true } });
}

/** The confirmation page: the same form again (its fields carried over, hidden) with a password field and, for a user with a passkey, its button. */
function askToConfirm({ render }: PortalContext, request: FastifyRequest, reply: FastifyReply, action: string, hasPasskey: boolean, error?: string): void {
  reply.header('cache-control', 'no-store');
  render(
    request,
    reply,
    'confirm-identity',
    {
      title: 'Confirm it is you',
      action,
      formAction: request.url.split('?', 1)[0] ?? '/',
      fields: carriedFields(request.body),
      windowMinutes: REAUTHENTICATION_WINDOW_MS / 60_000,
      hasPasskey,
      error,
    },
    error === undefined ? 200 : 401,
  );
}
