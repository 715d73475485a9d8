import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Services } from '../../../services.js';
import { recordPortalAction, recordUserEvent } from '../portal-audit.js';
import type { PortalContext } from '../portal-context.js';
import { csrfField, formField } from '../portal-context.js';
import { askedToConfirm, confirmationFields } from '../portal-reauthentication.js';
import { safeNext, signedInUser } from '../portal-session.js';
import { spendAttempt } from './sign-in-pages.js';
import { pendingCookie } from '../portal-two-step.js';

const CodeForm = Type.Object({ _csrf: csrfField, code: formField(), next: Type.Optional(formField()) });
const ConfirmedForm = Type.Object({ _csrf: csrfField, ...confirmationFields });
const SecondStepQuery = Type.Object({ next: Type.Optional(Type.String({ maxLength: 2000 })) });

const WRONG_CODE = 'That code is not right, or was used already. Type the code your app shows now, or a recovery code.';
const WRONG_SETUP_CODE = 'That code is not right. Type the 6 digits your app shows now for Store Orders.';

/** What the Settings page's two-step section shows (partials/two-step-settings.eta). */
export async function twoStepSection(services: Pick<Services, 'twoStep'>, userId: number): Promise<{ twoStep: { on: boolean; recoveryCodesLeft: number } }> {
  return { twoStep: await services.twoStep.status(userId) };
}

/**
 * Two-step sign-in (docs/portal.md, "Two-step sign-in"): the sign-in's
 * second step (public: `/sign-in/two-step`, a code of the authenticator app
 * or a recovery code, counted against the sign-in throttle like a password),
 * and, signed in, Settings' set-up, new recovery codes and turning it off
 * (each a sensitive action: portal-reauthentication.ts).
 */
export function registerTwoStepSignInPages(scope: FastifyInstance, context: PortalContext): void {
  const app = scope.withTypeProvider<TypeBoxTypeProvider>();
  const { render, services, sessions, throttle } = context;
  const cookie = pendingCookie(context.cookies);

  async function pendingUser(request: FastifyRequest) {
    const userId = await services.twoStep.pendingSignInUser(request.cookies[cookie.name]);
    return userId === undefined ? undefined : services.users.findUser(userId);
  }

  app.get('/sign-in/two-step', { schema: { querystring: SecondStepQuery } }, async (request, reply) => {
    reply.header('cache-control', 'no-store');
    if ((await pendingUser(request)) === undefined) return reply.redirect('/sign-in', 303);
    return render(request, reply, 'two-step', { title: 'Two-step sign-in', next: safeNext(request.query.next) });
  });

  app.post('/sign-in/two-step', { schema: { body: CodeForm } }, async (request, reply) => {
    reply.header('cache-control', 'no-store');
    const next = safeNext(request.body.next);
    const user = await pendingUser(request);
    if (user === undefined) return reply.redirect('/sign-in', 303);
    await spendAttempt(context, request, { email: user.email, signIn: 'password' });
    const kind = await services.twoStep.verify(user.id, request.body.code);
    const token = request.cookies[cookie.name] ?? '';
    if (kind === undefined || (await services.twoStep.finishPendingSignIn(token)) !== user.id) {
      context.signIns('password', 'failure');
      void recordUserEvent(services.team, request, user, 'authn_login_fail', { details: { method: 'password', secondStep: 'wrong_code' } });
      return render(request, reply, 'two-step', { title: 'Two-step sign-in', next, error: WRONG_CODE }, 401);
    }
    context.signIns('password', 'success');
    reply.clearCookie(cookie.name, cookie.options);
    await throttle.succeeded({ email: user.email, address: request.ip });
    const accountId = await sessions.start(request, reply, user.id);
    await recordPortalAction(services.audit, request, { ...user, accountId }, 'authn_login_success', { details: { method: 'password', secondStep: kind } });
    return reply.redirect(kind === 'recovery_code' ? '/settings?two-step=recovery-code-used#two-step-heading' : next, 303);
  });
}

/** Settings' two-step section: set up (a QR code, then a first code, then the recovery codes once), new recovery codes, off. */
export function registerTwoStepSettingsPages(scope: FastifyInstance, context: PortalContext): void {
  const app = scope.withTypeProvider<TypeBoxTypeProvider>();
  const { render, services } = context;

  app.post('/settings/two-step/set-up', { schema: { body: ConfirmedForm } }, async (request, reply) => {
    if (await askedToConfirm(context, request, reply, 'set up two-step sign-in')) return reply;
    const { user } = signedInUser(request);
    const setUp = await services.twoStep.begin(user);
    if (setUp === undefined) return reply.redirect('/settings#two-step-heading', 303);
    reply.header('cache-control', 'no-store');
    return render(request, reply, 'two-step-set-up', { title: 'Set up two-step sign-in', setUp });
  });

  app.post('/settings/two-step/confirm', { schema: { body: CodeForm } }, async (request, reply) => {
    const { user } = signedInUser(request);
    reply.header('cache-control', 'no-store');
    await spendAttempt(context, request, { email: user.email });
    const confirmed = await services.twoStep.confirm(user.id, request.body.code);
    if (confirmed === undefined) {
      const setUp = await services.twoStep.pendingSetUp(user);
      if (setUp === undefined) return reply.redirect('/settings#two-step-heading', 303);
      return render(request, reply, 'two-step-set-up', { title: 'Set up two-step sign-in', setUp, error: WRONG_SETUP_CODE }, 400);
    }
    await context.throttle.succeeded({ email: user.email, address: request.ip });
    await recordUserEvent(services.team, request, user, 'authn_two_step_enabled');
    await services.users.notifySecurityChange(user.id, 'two_step_enabled', context.origin());
    return render(request, reply, 'two-step-codes', { title: 'Your recovery codes', codes: confirmed.recoveryCodes, justEnabled: true });
  });

  app.post('/settings/two-step/recovery-codes', { schema: { body: ConfirmedForm } }, async (request, reply) => {
    if (await askedToConfirm(context, request, reply, 'make new recovery codes')) return reply;
    const { user } = signedInUser(request);
    const codes = await services.twoStep.newRecoveryCodes(user.id);
    if (codes === undefined) return reply.redirect('/settings#two-step-heading', 303);
    await recordUserEvent(services.team, request, user, 'authn_recovery_codes_replaced');
    await services.users.notifySecurityChange(user.id, 'recovery_codes_replaced', context.origin());
    reply.header('cache-control', 'no-store');
    return render(request, reply, 'two-step-codes', { title: 'Your recovery codes', codes, justEnabled: false });
  });

  app.post('/settings/two-step/off', { schema: { body: ConfirmedForm } }, async (request, reply) => {
    if (await askedToConfirm(context, request, reply, 'turn two-step sign-in off')) return reply;
    const { user } = signedInUser(request);
    if (await services.twoStep.turnOff(user.id)) {
      await recordUserEvent(services.team, request, user, 'authn_two_step_disabled');
      await services.users.notifySecurityChange(user.id, 'two_step_disabled', context.origin());
    }
    return reply.redirect('/settings?two-step=off#two-step-heading', 303);
  });
}
