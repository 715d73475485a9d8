import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { confirmsAccountName } from '../../../accounts/accounts-service.js';
import { portalAuditContext } from '../portal-audit.js';
import type { PortalContext } from '../portal-context.js';
import { csrfField, formField } from '../portal-context.js';
import { askedToConfirm, confirmationFields } from '../portal-reauthentication.js';
import { PortalRefusal } from '../portal-security.js';
import { signedInUser } from '../portal-session.js';

const DeleteForm = Type.Object({ _csrf: csrfField, storeName: formField(), ...confirmationFields });

/**
 * `/account/delete` (owners, portal-roles.ts): the danger zone the Team page
 * links to. The page says what deleting the store ends; the form asks for
 * the store's name, typed, then a recent authentication
 * (portal-reauthentication.ts), then deletes it (accounts-service.ts
 * deleteAccount: one transaction in storage; docs/portal.md, "Deleting an
 * account"). The owner's own session in it ends with it: they are signed
 * out and told so on the sign-in page.
 */
export function registerAccountDeletionPages(scope: FastifyInstance, context: PortalContext): void {
  const { render, services, sessions } = context;
  const app = scope.withTypeProvider<TypeBoxTypeProvider>();

  function showForm(request: FastifyRequest, reply: FastifyReply, extra: { storeName?: string; error?: string } = {}, status = 200) {
    reply.header('cache-control', 'no-store');
    return render(request, reply, 'account-delete', { title: 'Delete this store', storeName: '', ...extra }, status);
  }

  app.get('/account/delete', async (request, reply) => showForm(request, reply));

  app.post('/account/delete', { schema: { body: DeleteForm } }, async (request, reply) => {
    const signedIn = signedInUser(request);
    const { storeName } = request.body;
    // The name first: a mistyped name is said at once, before any password is asked.
    if (!confirmsAccountName({ name: signedIn.accountName }, storeName)) {
      return showForm(request, reply, { storeName, error: `That is not the store's name. Type ${signedIn.accountName} exactly as it is shown.` }, 400);
    }
    if (await askedToConfirm(context, request, reply, `delete ${signedIn.accountName}`)) return reply;
    const { user, role } = signedIn;
    const deleted = await services.accounts.deleteAccount(user.accountId, { kind: 'member', userId: user.id, role, audit: portalAuditContext(request) }, storeName);
    if (!deleted.ok) {
      if (deleted.reason === 'forbidden') throw new PortalRefusal(403, deleted.message);
      return showForm(request, reply, { storeName, error: deleted.message }, deleted.reason === 'name_mismatch' ? 400 : 409);
    }
    await sessions.end(request, reply);
    return reply.redirect('/sign-in?signed-out=deleted', 303);
  });
}
