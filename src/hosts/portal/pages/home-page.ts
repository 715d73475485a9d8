import type { FastifyInstance } from 'fastify';
import type { PortalContext } from '../portal-context.js';
import { signedInUser } from '../portal-session.js';

/** `/` (signed in): the account, the API's addresses and a first request to copy. */
export function registerHomePage(scope: FastifyInstance, { render, api }: PortalContext): void {
  scope.get('/', async (request, reply) => {
    const { user, accountName } = signedInUser(request);
    const addresses = api();
    return render(request, reply, 'home', {
      title: accountName,
      accountId: user.accountId,
      api: addresses,
      curl: `curl -H "Authorization: Bearer YOUR_API_KEY" ${addresses.production}/store/orders`,
    });
  });
}
