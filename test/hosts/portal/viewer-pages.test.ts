/** What a viewer is shown, over real requests on every backend: the rows of keys, webhooks and orders carry no action the server would refuse them; a developer's carry every one. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { accountOf, createTestPortal, pageText, signUp, TEST_PASSWORD, type PortalClient, type TestPortal } from '../../support/portal.js';
import { httpBackends } from '../../support/storage.js';

/** Creating an endpoint checks its URL only (nothing is delivered here): loopback allowed, as the webhook pages' tests do. */
const LOOPBACK_ENV = { WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_ALLOWED_NETWORKS: '127.0.0.0/8' };

/** The owner invites `email` as `role`; the invitee signs up with the mailed link in a browser of their own. */
async function invite(portal: TestPortal, owner: PortalClient, email: string, role: string): Promise<PortalClient> {
  assert.equal((await owner.post('/team/invitations', { email, role }, {}, '/team')).statusCode, 303);
  const mail = (await portal.services.mail.list({ recipient: email, limit: 10 })).find((candidate) => candidate.kind === 'invitation');
  const link = /https?:\/\/\S+/.exec((await portal.services.mail.show(mail?.id ?? ''))?.body.text ?? '')?.[0] ?? '';
  const token = new URL(link).searchParams.get('invite') ?? '';
  const invitee = portal.client();
  await invitee.get(`/sign-up?invite=${token}`);
  assert.equal((await invitee.post('/sign-up', { email, password: TEST_PASSWORD, invite: token })).statusCode, 303);
  return invitee;
}

/** Every action a row or the deliveries page may offer: links to the two-step actions and forms that change something. */
const ACTIONS = {
  keys: [/href="\/keys\/\d+\/roll"/, /href="\/keys\/\d+\/revoke"/, />Roll</, />Revoke</],
  webhooks: [/href="\/webhooks\/we_[0-9a-f]{32}\/(delete|rotate)"/, /action="\/webhooks\/we_[0-9a-f]{32}\/(disable|enable)"/, />Delete</, />Rotate secret</],
  deliveries: [/action="\/webhooks\/we_[0-9a-f]{32}\/(disable|enable|test|recover|rate-limit|redeliver)"/, />Redeliver</, />Send test event</],
  orders: [/href="\/orders\/\d+\/cancel"/, /action="\/orders\/\d+\/ship"/, />Cancel order</, />Mark shipped</],
};

for (const backend of httpBackends()) {
  describe(`portal pages for a viewer: ${backend.name}`, () => {
    test('when a viewer opens the keys, webhooks, deliveries and orders pages, then the rows are listed without Roll, Revoke, Disable, Rotate, Delete, Redeliver, Cancel or Mark shipped; a developer sees every one of them', async (t) => {
      const portal = await createTestPortal(t, backend, { env: LOOPBACK_ENV });
      const { client: owner, email } = await signUp(portal, { email: 'owner@example.com' });
      assert.equal((await owner.post('/keys', { name: 'till', expiresIn: '90d', scope: ['orders:read'] }, {}, '/keys')).statusCode, 201);
      const created = await owner.post('/webhooks', { url: 'http://127.0.0.1:9/hooks', eventType: 'order.created', description: 'fulfilment' }, {}, '/webhooks');
      const endpointId = /href="\/webhooks\/(we_[0-9a-f]{32})"/.exec(created.body)?.[1];
      assert.ok(endpointId !== undefined, pageText(created.body));
      await portal.services.orderOperations.createOrder({ accountId: await accountOf(portal, email) });
      // No engine runs here: make the delivery as its claim would.
      await portal.storage.webhooks.materializeDeliveries();
      const viewer = await invite(portal, owner, 'viewer@example.com', 'viewer');
      const developer = await invite(portal, owner, 'dev@example.com', 'developer');

      const pages = { keys: '/keys', webhooks: '/webhooks', deliveries: `/webhooks/${endpointId}`, orders: '/orders' } as const;
      for (const [name, url] of Object.entries(pages) as [keyof typeof pages, string][]) {
        const seenByViewer = await viewer.get(url);
        const seenByDeveloper = await developer.get(url);
        assert.equal(seenByViewer.statusCode, 200, url);
        assert.equal(seenByDeveloper.statusCode, 200, url);
        for (const action of ACTIONS[name]) {
          assert.doesNotMatch(seenByViewer.body, action, `a viewer is offered no ${String(action)} on ${url}`);
          assert.match(seenByDeveloper.body, action, `a developer is offered ${String(action)} on ${url}`);
        }
      }
      const keys = pageText((await viewer.get('/keys')).body);
      assert.match(keys, /till/, 'the viewer still reads the key’s row');
      assert.match(keys, /You are a viewer in Main Street Pets/);
      const deliveries = await viewer.get(`/webhooks/${endpointId}`);
      assert.match(deliveries.body, /href="\/webhooks\/we_[0-9a-f]{32}\/deliveries\/[^"]+"/, 'the viewer still reads the deliveries');
      assert.match(pageText(deliveries.body), /Rate limit\s+No limit/);
      assert.match((await viewer.get('/webhooks')).body, />Deliveries</, 'and may open them');
    });
  });
}
