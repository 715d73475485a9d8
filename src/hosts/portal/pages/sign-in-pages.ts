import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { normaliseEmail } from '../../../users/user-input.js';
import type { SignInMethod } from '../portal-metrics.js';
import type { PortalContext } from '../portal-context.js';
import { csrfField, formField } from '../portal-context.js';
import { recordPortalAction, recordUserEvent } from '../portal-audit.js';
import { inMinutes } from '../portal-render.js';
import { PortalRefusal } from '../portal-security.js';
import { safeNext } from '../portal-session.js';
import { askForSecondStep } from '../portal-two-step.js';

/** The one message for every failed sign-in: unknown email, wrong password, disabled user. */
const SIGN_IN_FAILED = 'Email or password is incorrect.';

const SignInQuery = Type.Object({
  next: Type.Optional(Type.String({ maxLength: 2000 })),
  reset: Type.Optional(Type.String({ maxLength: 10 })),
  'signed-out': Type.Optional(Type.String({ maxLength: 10 })),
});

/** What the sign-in page says after a redirect here: a password reset (`?reset=1`) or a sign-out (`?signed-out=1`, `=everywhere` from /settings, `=deleted` after deleting the store). */
function signInNotice(query: { reset?: string; 'signed-out'?: string }): string | undefined {
  if (query.reset === '1') return 'Your password was changed. Sign in with the new one.';
  if (query['signed-out'] === 'everywhere') return 'You have signed out in every browser.';
  if (query['signed-out'] === 'deleted') return 'The store was deleted and you have signed out. Its API keys no longer work.';
  return query['signed-out'] === '1' ? 'You have signed out.' : undefined;
}

const SignInForm = Type.Object({ _csrf: csrfField, email: formField(), password: formField(), next: Type.Optional(formField()) });

/** The throttle page: 429, saying when to try again. */
function tooManyAttempts(waitMs: number): PortalRefusal {
  return new PortalRefusal(429, `Too many attempts. Try again ${inMinutes(waitMs)}.`, { 'retry-after': String(Math.ceil(waitMs / 1000)) });
}

/**
 * Counts an attempt of the client address (and of the email, when given)
 * against the throttle, kept in the database for every process; refuses
 * with the throttle page, counting nothing, while either is over its
 * budget. A refused sign-in (`signIn`: its method) is counted in the metrics.
 */
export async function spendAttempt(
  { throttle, signIns }: Pick<PortalContext, 'throttle' | 'signIns'>,
  request: FastifyRequest,
  { email, signIn }: { email?: string; signIn?: SignInMethod } = {},
): Promise<void> {
  const answer = await throttle.hit({ address: request.ip, ...(email === undefined ? {} : { email }) });
  if (answer.allowed) return;
  if (signIn !== undefined) signIns(signIn, 'throttled');
  throw tooManyAttempts(answer.retryAfterMs);
}

/** Refuses with the throttle page while the client address is over its budget, counting nothing (a step that only prepares an attempt). */
export async function refuseWhileThrottled({ throttle }: Pick<PortalContext, 'throttle'>, request: FastifyRequest): Promise<void> {
  const wait = await throttle.retryAfterMs({ address: request.ip });
  if (wait > 0) throw tooManyAttempts(wait);
}

/** `/sign-in` (public): email and password; the passkey button is the passkeys module's (partials/passkey-sign-in.eta). */
export function registerSignInPages(scope: FastifyInstance, context: PortalContext): void {
  const app = scope.withTypeProvider<TypeBoxTypeProvider>();
  const { render, services, sessions, throttle } = context;

  app.get('/sign-in', { schema: { querystring: SignInQuery } }, async (request, reply) => {
    if ((await sessions.read(request)) !== undefined) return reply.redirect(safeNext(request.query.next), 303);
    reply.header('cache-control', 'no-store');
    return render(request, reply, 'sign-in', { title: 'Sign in', next: safeNext(request.query.next), email: '', notice: signInNotice(request.query) });
  });

  app.post('/sign-in', { schema: { body: SignInForm } }, async (request, reply) => {
    const { email, password } = request.body;
    const next = safeNext(request.body.next);
    const normalised = normaliseEmail(email);
    await spendAttempt(context, request, { email: normalised, signIn: 'password' });
    const result = await services.users.signIn({ email, password });
    context.signIns('password', result.ok ? 'success' : 'failure');
    if (!result.ok) {
      // Not awaited: the write would make a known email's failure measurably slower than an unknown one's (it never rejects).
      // In every account the user belongs to now: none they were removed from.
      if (result.attempted !== undefined) void recordUserEvent(services.team, request, result.attempted, 'authn_login_fail', { details: { method: 'password' } });
      reply.header('cache-control', 'no-store');
      return render(request, reply, 'sign-in', { title: 'Sign in', next, email, error: SIGN_IN_FAILED }, 401);
    }
    // Two-step sign-in on: no session until the code (two-step-pages.ts); the throttle forgets nothing yet.
    if (await services.twoStep.isOn(result.user.id)) return askForSecondStep(context, reply, result.user.id, next);
    await throttle.succeeded({ email: normalised, address: request.ip });
    // Recorded in the account the session works in: not one the user has left.
    const accountId = await sessions.start(request, reply, result.user.id);
    await recordPortalAction(services.audit, request, { ...result.user, accountId }, 'authn_login_success', { details: { method: 'password' } });
    return reply.redirect(next, 303);
  });
}
