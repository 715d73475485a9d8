import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { PortalContext } from '../portal-context.js';
import { csrfField, formField } from '../portal-context.js';
import { recordPortalAction } from '../portal-audit.js';
import { spendAttempt } from './sign-in-pages.js';
import { roleLabel } from '../../../users/team/member-roles.js';
import type { Refusal } from '../../../users/user-input.js';
import { rememberSignUpMail } from './dev-mailbox-pages.js';

const SignUpQuery = Type.Object({ invite: Type.Optional(Type.String({ maxLength: 200 })) });
const SignUpForm = Type.Object({ _csrf: csrfField, email: formField(), password: formField(), storeName: Type.Optional(formField()), invite: Type.Optional(formField()) });

/**
 * `/sign-up` (public). Without an invitation: answers "Check your email to
 * continue" for every address (users/sign-up/sign-up-service.ts), and the
 * mailed link finishes the sign-up (sign-up-link-pages.ts); in development
 * (`devMailbox`) the page links the mail it sent (dev-mailbox-pages.ts).
 * With an invitation (`?invite=`: mailed from the Team page, or an
 * operator's link): creates a member of that account with the invitation's
 * role, signs them in and lands on `/`. A visitor already signed in is
 * offered to accept the invitation as themself instead (team-pages.ts,
 * `/invitations/accept`). PORTAL_SIGNUP=closed admits invitations only.
 */
export function registerSignUpPages(scope: FastifyInstance, context: PortalContext, { devMailbox }: { devMailbox: boolean }): void {
  const app = scope.withTypeProvider<TypeBoxTypeProvider>();
  const { render, services, sessions, origin } = context;
  const { users } = services;

  /** What the form shows: the store an invitation joins, as which role and for which address, or whether it must ask for a store name. */
  async function invitation(token: string | undefined): Promise<{ invite: string; joins?: string; joinsAs?: string; invitedEmail?: string; inviteInvalid: boolean }> {
    if (token === undefined || token === '') return { invite: '', inviteInvalid: false };
    const pending = await services.team.peek(token);
    if (pending === undefined) return { invite: '', inviteInvalid: true };
    const joins = (await services.accounts.requireAccount(pending.accountId)).name;
    return { invite: token, joins, joinsAs: roleLabel(pending.role).toLowerCase(), ...(pending.email === undefined ? {} : { invitedEmail: pending.email }), inviteInvalid: false };
  }

  app.get('/sign-up', { schema: { querystring: SignUpQuery } }, async (request, reply) => {
    reply.header('cache-control', 'no-store');
    const invite = await invitation(request.query.invite);
    const signedIn = invite.joins === undefined ? undefined : await sessions.read(request);
    if (signedIn !== undefined) return render(request, reply, 'invitation', { title: 'Join a store', ...invite, email: signedIn.user.email });
    return render(request, reply, 'sign-up', { title: 'Create your account', closed: users.signUpPolicy === 'closed', email: invite.invitedEmail ?? '', storeName: '', ...invite });
  });

  app.post('/sign-up', { schema: { body: SignUpForm } }, async (request, reply) => {
    const { email, password, storeName = '', invite: inviteToken = '' } = request.body;
    // Every sign-up costs an Argon2 hash: counted per address like a failed sign-in.
    await spendAttempt(context, request);
    const refused = async (error: Refusal) => {
      reply.header('cache-control', 'no-store');
      const invite = await invitation(inviteToken);
      return render(request, reply, 'sign-up', { title: 'Create your account', closed: users.signUpPolicy === 'closed', email, storeName, error, ...invite }, 400);
    };
    if (inviteToken === '') {
      // The same page, status and headers for every address (sign-up-service.ts): only the address it names differs.
      const started = await services.signUp.start({ email, password, storeName, origin: origin() });
      if (!started.ok) return refused(started);
      reply.header('cache-control', 'no-store');
      if (devMailbox) rememberSignUpMail(reply, origin(), started.mailId);
      return render(request, reply, 'sign-up-sent', { title: 'Check your email to continue', email: started.email, devMailbox });
    }
    const result = await users.acceptInvitationAsNewUser({ email, password, inviteToken, origin: origin() });
    if (!result.ok) return refused(result);
    await sessions.start(request, reply, result.user.id);
    await recordPortalAction(services.audit, request, result.user, 'user_created', { target: { kind: 'user', id: String(result.user.id) }, details: { invited: true } });
    return reply.redirect('/', 303);
  });
}
