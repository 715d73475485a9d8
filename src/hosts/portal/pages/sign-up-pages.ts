import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { PortalContext } from '../portal-context.js';
import { csrfField, formField } from '../portal-context.js';
import { recordPortalAction } from '../portal-audit.js';
import { spendAttempt } from './sign-in-pages.js';

const SignUpQuery = Type.Object({ invite: Type.Optional(Type.String({ maxLength: 200 })) });
const SignUpForm = Type.Object({ _csrf: csrfField, email: formField(), password: formField(), storeName: Type.Optional(formField()), invite: Type.Optional(formField()) });

/**
 * `/sign-up` (public): creates a user and their account (the store), or,
 * with an operator's invitation (`?invite=`), a user of that account; then
 * signs them in and lands on `/`. PORTAL_SIGNUP=closed admits invitations only.
 */
export function registerSignUpPages(scope: FastifyInstance, context: PortalContext): void {
  const app = scope.withTypeProvider<TypeBoxTypeProvider>();
  const { render, services, sessions, origin } = context;
  const { users } = services;

  /** What the form shows: the store an invitation joins, or whether it must ask for a store name. */
  async function invitation(token: string | undefined): Promise<{ invite: string; joins?: string; inviteInvalid: boolean }> {
    if (token === undefined || token === '') return { invite: '', inviteInvalid: false };
    const accountId = await users.peekInvite(token);
    if (accountId === undefined) return { invite: '', inviteInvalid: true };
    return { invite: token, joins: (await services.accounts.requireAccount(accountId)).name, inviteInvalid: false };
  }

  app.get('/sign-up', { schema: { querystring: SignUpQuery } }, async (request, reply) => {
    reply.header('cache-control', 'no-store');
    const invite = await invitation(request.query.invite);
    return render(request, reply, 'sign-up', { title: 'Create your account', closed: users.signUpPolicy === 'closed', email: '', storeName: '', ...invite });
  });

  app.post('/sign-up', { schema: { body: SignUpForm } }, async (request, reply) => {
    const { email, password, storeName = '', invite: inviteToken = '' } = request.body;
    // Every sign-up costs an Argon2 hash: counted per address like a failed sign-in.
    await spendAttempt(context, request);
    const result = await users.signUp({ email, password, storeName, origin: origin(), ...(inviteToken === '' ? {} : { inviteToken }) });
    if (!result.ok) {
      reply.header('cache-control', 'no-store');
      const invite = await invitation(inviteToken);
      return render(
        request,
        reply,
        'sign-up',
        { title: 'Create your account', closed: users.signUpPolicy === 'closed', email, storeName, error: result, ...invite },
        400,
      );
    }
    await sessions.start(request, reply, result.user.id);
    await recordPortalAction(services.audit, request, result.user, 'user_created', { target: { kind: 'user', id: String(result.user.id) }, details: { invited: inviteToken !== '' } });
    return reply.redirect('/', 303);
  });
}
