import type { FastifyInstance } from 'fastify';
import type { PortalContext } from '../portal-context.js';
import { signedInUser } from '../portal-session.js';
import { LATENCY_NOTE, usageWindows, VIEW_HEIGHT, VIEW_WIDTH } from './usage-charts.js';

/** `/` (signed in): the account, the API's addresses, a first request to copy, and usage at a glance (charts of the last 24 hours and 14 days). */
export function registerHomePage(scope: FastifyInstance, { render, api, services }: PortalContext): void {
  scope.get('/', async (request, reply) => {
    const { user, accountName } = signedInUser(request);
    const addresses = api();
    const overview = await services.usage.overview(user.accountId);
    return render(request, reply, 'home', {
      title: accountName,
      accountId: user.accountId,
      api: addresses,
      curl: `curl -H "Authorization: Bearer YOUR_API_KEY" ${addresses.production}/store/orders`,
      usage: { windows: usageWindows(overview), viewBox: `0 0 ${VIEW_WIDTH} ${VIEW_HEIGHT}`, latencyNote: LATENCY_NOTE },
    });
  });
}
