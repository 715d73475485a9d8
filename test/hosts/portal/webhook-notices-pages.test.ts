/** The failure notices' form over real requests: CSRF and Origin, other accounts, where acknowledging returns to. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createTestPortal, pageText, signUp } from '../../support/portal.js';
import { httpBackends } from '../../support/storage.js';

const LOOPBACK_ENV = { WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_ALLOWED_NETWORKS: '127.0.0.0/8' };
const HOOK_URL = 'http://127.0.0.1:9/hooks';

for (const backend of httpBackends()) {
  describe(`portal failure notices: ${backend.name}`, () => {
    test('when an endpoint the service disabled is acknowledged with a forged form or by another account, then nothing changes; the owner’s own form acknowledges it and returns to a page of the portal only', async (t) => {
      const portal = await createTestPortal(t, backend, { env: LOOPBACK_ENV });
      const { client, email } = await signUp(portal);
      const user = await portal.storage.users.findByEmail(email);
      assert.ok(user !== undefined);
      const { endpoint } = await portal.services.webhooks.createEndpoint(user.accountId, { url: HOOK_URL, eventTypes: ['order.created'] });
      // The settlement of an attempt answered 410, as the delivery engine records it.
      await portal.services.orderOperations.createOrder({ accountId: user.accountId });
      const now = new Date(Date.now() + 1000).toISOString();
      const [claimed] = await portal.storage.webhooks.claimDue({ claimant: 'engine', now, claimedUntil: '9999-12-31T00:00:00.000Z', limit: 1 });
      assert.ok(claimed);
      await portal.storage.webhooks.markAttemptFailed({ id: claimed.id, claimant: 'engine', at: now, error: 'HTTP 410', statusCode: 410, gone: true });
      const stillDue = async () => (await portal.services.webhookNotices.unacknowledged(user.accountId)).length === 1;

      const page = await client.get('/audit');
      assert.equal(page.statusCode, 200);
      assert.ok(pageText(page.body).includes(`${HOOK_URL} was disabled by the service`));
      assert.match(page.body, new RegExp(`<form method="post" action="/webhooks/${endpoint.id}/acknowledge">`));
      assert.match(page.body, /name="next" value="\/audit"/, 'comes back to the page it was shown on');

      const acknowledge = `/webhooks/${endpoint.id}/acknowledge`;
      for (const forgery of [{ csrf: null }, { csrf: 'forged-token' }, { origin: 'https://evil.example' }]) {
        const refused = await client.post(acknowledge, { next: '/audit' }, forgery, '/audit');
        assert.equal(refused.statusCode, 403, JSON.stringify(forgery));
        assert.ok(await stillDue(), 'a forged form acknowledges nothing');
      }

      const other = await signUp(portal);
      assert.ok(!pageText((await other.client.get('/')).body).includes(HOOK_URL), "another account's page shows no notice of it");
      const elsewhere = await other.client.post(acknowledge, { next: '/' }, {}, '/');
      assert.deepEqual([elsewhere.statusCode, elsewhere.headers.location], [303, '/']);
      assert.ok(await stillDue(), 'another account acknowledges nothing');

      const done = await client.post(acknowledge, { next: '//evil.example/phish' }, {}, '/audit');
      assert.deepEqual([done.statusCode, done.headers.location], [303, '/'], 'never off the portal');
      assert.equal(await stillDue(), false);
      const after = await client.get('/audit');
      assert.ok(!pageText(after.body).includes('was disabled by the service'));
      assert.ok(pageText(after.body).includes('Notice of a disabled webhook endpoint acknowledged'), 'the audit trail page names the acknowledgement');
    });
  });
}
