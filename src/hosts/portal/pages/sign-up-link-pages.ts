import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { SignUpLinkFailure } from '../../../users/sign-up/sign-up-service.js';
import type { PortalContext } from '../portal-context.js';
import { csrfField, formField } from '../portal-context.js';
import { recordPortalAction } from '../portal-audit.js';
import { spendAttempt } from './sign-in-pages.js';

const LinkQuery = Type.Object({ token: Type.Optional(Type.String({ maxLength: 200 })) });
/** `email`: the hidden field that tells a password manager whose password this is. */
const ConfirmForm = Type.Object({ _csrf: csrfField, token: formField(), password: formField(), email: Type.Optional(formField()) });

const TITLE = 'Finish creating your account';

/** The status of each page a link that cannot finish a sign-up opens. */
const FAILURE_STATUS: Readonly<Record<Exclude<SignUpLinkFailure, 'wrong_password'>, number>> = { invalid: 400, email_taken: 409, closed: 403 };

/**
 * `/sign-up/confirm?token=…` (public, so it works in any browser): the page
 * the link mailed by a sign-up opens (users/sign-up/sign-up-service.ts). It
 * names the address and the store and asks for the password chosen on the
 * form; **Create account** then creates the account, its owner (verified)
 * and their membership at once, signs them in and lands on `/`. A used,
 * replaced or expired link, an address that has an account by now, and a
 * closed sign-up each get a page that says so. Every press is an attempt of
 * the client address against the sign-in throttle.
 */
export function registerSignUpLinkPages(scope: FastifyInstance, context: PortalContext): void {
  const app = scope.withTypeProvider<TypeBoxTypeProvider>();
  const { render, services, sessions } = context;

  /** The form for a link still pending, or the page saying why it cannot finish a sign-up. */
  async function linkPage(token: string): Promise<{ data: Record<string, unknown>; status: number }> {
    if (services.users.signUpPolicy === 'closed') return { data: { outcome: 'closed' }, status: FAILURE_STATUS.closed };
    const pending = await services.signUp.peek(token);
    if (pending === undefined) return { data: { outcome: 'invalid' }, status: FAILURE_STATUS.invalid };
    if (pending.accountExists) return { data: { outcome: 'email_taken', email: pending.email }, status: FAILURE_STATUS.email_taken };
    return { data: { outcome: 'form', token, email: pending.email, storeName: pending.storeName }, status: 200 };
  }

  app.get('/sign-up/confirm', { schema: { querystring: LinkQuery } }, async (request, reply) => {
    reply.header('cache-control', 'no-store');
    const { data, status } = await linkPage(request.query.token ?? '');
    return render(request, reply, 'sign-up-confirm', { title: TITLE, ...data }, status);
  });

  app.post('/sign-up/confirm', { schema: { body: ConfirmForm } }, async (request, reply) => {
    await spendAttempt(context, request);
    const { token, password } = request.body;
    const result = await services.signUp.complete({ token, password });
    if (!result.ok) {
      reply.header('cache-control', 'no-store');
      if (result.reason !== 'wrong_password') return render(request, reply, 'sign-up-confirm', { title: TITLE, outcome: result.reason }, FAILURE_STATUS[result.reason]);
      const { data, status } = await linkPage(token);
      return render(request, reply, 'sign-up-confirm', { title: TITLE, ...data, wrongPassword: true }, status === 200 ? 400 : status);
    }
    await sessions.start(request, reply, result.user.id);
    await recordPortalAction(services.audit, request, result.user, 'user_created', { target: { kind: 'user', id: String(result.user.id) }, details: { invited: false } });
    return reply.redirect('/', 303);
  });
}
