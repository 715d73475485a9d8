/** The /webhooks pages over real requests, on every backend: create (secret once), SSRF refusal, disable/enable, rotate, delete, deliveries and redelivery, other accounts, CSRF. */
import assert from 'node:assert/strict';
import { describe, test, type TestContext } from 'node:test';
import { accountOf, createTestPortal, pageText, type PortalClient, signUp, type TestPortal } from '../../support/portal.js';
import { httpBackends, type TestBackend } from '../../support/storage.js';

const SECRET = /id="signing-secret"[^>]*value="([^"]+)"/;
const ALL_TYPES = ['order.created', 'order.shipped', 'order.cancelled', 'message.sent', 'message.failed'];
/** Creation checks the URL only (nothing is delivered here): loopback allowed, as the webhook tests do. */
const LOOPBACK_ENV = { WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_ALLOWED_NETWORKS: '127.0.0.0/8' };
const HOOK_URL = 'http://127.0.0.1:9/hooks';

async function webhooksPortal(t: TestContext, backend: TestBackend): Promise<TestPortal> {
  return createTestPortal(t, backend, { env: LOOPBACK_ENV });
}

async function createEndpoint(client: PortalClient, fields: Record<string, string | string[]> = {}) {
  const response = await client.post('/webhooks', { url: HOOK_URL, eventType: ALL_TYPES, description: 'fulfilment', ...fields }, {}, '/webhooks');
  return { response, secret: SECRET.exec(response.body)?.[1] ?? '', id: /href="\/webhooks\/(we_[0-9a-f]{32})"/.exec(response.body)?.[1] ?? '' };
}


for (const backend of httpBackends()) {
  describe(`portal /webhooks: ${backend.name}`, () => {
    test('when a user creates an endpoint, then its secret is shown once (no-store, never in a URL) and the list shows the endpoint without it', async (t) => {
      const portal = await webhooksPortal(t, backend);
      const { client, email } = await signUp(portal);
      const page = await client.get('/webhooks');
      assert.equal(page.statusCode, 200);
      assert.match(page.body, /<a href="\/webhooks" aria-current="page">Webhooks<\/a>/, 'in the navigation, marked as the current page');
      for (const label of ['Endpoint URL', 'Event types', 'Description', 'Add endpoint']) assert.ok(pageText(page.body).includes(label), label);
      assert.equal((page.body.match(/type="checkbox" name="eventType" value="[^"]+" checked/g) ?? []).length, ALL_TYPES.length, 'every type is checked by default');

      const created = await createEndpoint(client);
      assert.equal(created.response.statusCode, 201, created.response.body);
      assert.equal(created.response.headers['cache-control'], 'no-store');
      assert.equal(created.response.headers.location, undefined);
      assert.match(created.secret, /^whsec_[A-Za-z0-9+/=]{20,}$/);
      assert.match(created.response.body, /<label for="signing-secret">Signing secret<\/label>/);
      assert.match(created.response.body, /id="signing-secret"[^>]*readonly/);
      assert.match(created.response.body, /data-copy="signing-secret"/);

      const [endpoint] = (await portal.services.webhooks.listEndpoints(await accountOf(portal, email), undefined, 10)).items;
      assert.ok(endpoint !== undefined);
      assert.equal(endpoint.eventTypes, null, 'all checked: every type, those added later included');
      assert.equal(endpoint.description, 'fulfilment');

      const again = await client.get('/webhooks');
      for (const column of ['URL', 'Event types', 'Status', 'Created']) assert.ok(again.body.includes(`<th scope="col">${column}</th>`), column);
      const text = pageText(again.body);
      assert.ok(text.includes(HOOK_URL));
      assert.ok(text.includes('all event types'));
      assert.ok(text.includes('enabled'));
      assert.ok(!again.body.includes(created.secret), 'never shown again');
      assert.ok(!again.body.includes('Signing secret'));
      assert.ok(!portal.logs.join('\n').includes(created.secret), 'never logged');
    });

    test('when some event types are checked, then the endpoint receives those only; none checked is a form error', async (t) => {
      const portal = await webhooksPortal(t, backend);
      const { client, email } = await signUp(portal);
      assert.equal((await createEndpoint(client, { eventType: ['order.cancelled', 'order.shipped'] })).response.statusCode, 201);
      const [endpoint] = (await portal.services.webhooks.listEndpoints(await accountOf(portal, email), undefined, 10)).items;
      assert.deepEqual(endpoint?.eventTypes, ['order.shipped', 'order.cancelled']);
      const none = await createEndpoint(client, { eventType: [] });
      assert.equal(none.response.statusCode, 400);
      assert.match(pageText(none.response.body), /Choose at least one event type\./);
    });

    test('when the URL is refused by the SSRF rules, then the form shows the reason with 400, keeps the input, and no endpoint is made', async (t) => {
      const portal = await webhooksPortal(t, backend);
      const { client, email } = await signUp(portal);
      const metadata = await createEndpoint(client, { url: 'https://169.254.169.254/latest/meta-data' });
      assert.equal(metadata.response.statusCode, 400);
      assert.match(metadata.response.body, /class="alert error" role="alert">url is refused: The URL&#39;s host 169\.254\.169\.254 is in a link-local \(cloud metadata\) range/);
      assert.match(metadata.response.body, /value="https:\/\/169\.254\.169\.254\/latest\/meta-data"/, 'the input is kept');
      assert.equal(metadata.secret, '');
      const scheme = await createEndpoint(client, { url: 'ftp://127.0.0.1/hooks' });
      assert.equal(scheme.response.statusCode, 400);
      assert.match(pageText(scheme.response.body), /url is refused: The URL must use https or http\./);
      const empty = await createEndpoint(client, { url: '  ' });
      assert.equal(empty.response.statusCode, 400);
      assert.match(pageText(empty.response.body), /Endpoint URL is required\./);
      assert.deepEqual((await portal.services.webhooks.listEndpoints(await accountOf(portal, email), undefined, 10)).items, []);
    });

    test('when a user disables and enables an endpoint, then its status follows and the disabling is in the audit trail', async (t) => {
      const portal = await webhooksPortal(t, backend);
      const { client, email } = await signUp(portal);
      const { id } = await createEndpoint(client);
      const accountId = await accountOf(portal, email);
      const disabled = await client.post(`/webhooks/${id}/disable`, {}, {}, '/webhooks');
      assert.equal(disabled.statusCode, 303);
      assert.equal(disabled.headers.location, '/webhooks?done=disabled');
      assert.equal((await portal.services.webhooks.getEndpoint(accountId, id)).status, 'disabled');
      const list = await client.get('/webhooks?done=disabled');
      assert.match(pageText(list.body), /The endpoint was disabled\./);
      assert.match(list.body, new RegExp(`action="/webhooks/${id}/enable"`));
      const audit = await portal.services.audit.list(accountId, { limit: 10 });
      const entry = audit.entries.find((candidate) => candidate.action === 'webhook_endpoint_disabled');
      assert.deepEqual(entry?.target, { kind: 'webhook_endpoint', id });
      assert.equal(entry?.actor.kind, 'user');
      const enabled = await client.post(`/webhooks/${id}/enable`, {});
      assert.equal(enabled.statusCode, 303);
      assert.equal((await portal.services.webhooks.getEndpoint(accountId, id)).status, 'enabled');
    });

    test('when a user rotates the secret through the confirmation step, then a new secret is shown once', async (t) => {
      const portal = await webhooksPortal(t, backend);
      const { client } = await signUp(portal);
      const { id, secret: first } = await createEndpoint(client);
      const confirm = await client.get(`/webhooks/${id}/rotate`);
      assert.equal(confirm.statusCode, 200);
      assert.match(confirm.body, /<button type="submit" class="button">Rotate secret<\/button>/);
      assert.ok(!confirm.body.includes('whsec_'));
      const rotated = await client.post(`/webhooks/${id}/rotate`, {});
      assert.equal(rotated.statusCode, 200);
      assert.equal(rotated.headers['cache-control'], 'no-store');
      const second = SECRET.exec(rotated.body)?.[1] ?? '';
      assert.match(second, /^whsec_/);
      assert.notEqual(second, first);
      assert.match(pageText(rotated.body), /signed with both the new and the previous secret/);
      assert.ok(!(await client.get('/webhooks')).body.includes(second));
    });

    test('when a user deletes an endpoint, then only the second step deletes it', async (t) => {
      const portal = await webhooksPortal(t, backend);
      const { client, email } = await signUp(portal);
      const { id } = await createEndpoint(client);
      const accountId = await accountOf(portal, email);
      const confirm = await client.get(`/webhooks/${id}/delete`);
      assert.equal(confirm.statusCode, 200);
      assert.match(confirm.body, /<button type="submit" class="button danger">Delete endpoint<\/button>/);
      assert.equal((await portal.services.webhooks.listEndpoints(accountId, undefined, 10)).items.length, 1, 'asking deletes nothing');
      const deleted = await client.post(`/webhooks/${id}/delete`, {});
      assert.equal(deleted.statusCode, 303);
      assert.equal(deleted.headers.location, '/webhooks?done=deleted');
      assert.deepEqual((await portal.services.webhooks.listEndpoints(accountId, undefined, 10)).items, []);
      assert.equal((await client.get(`/webhooks/${id}`)).statusCode, 404);
    });

    test('when an order changes, then its delivery is listed under the endpoint, and Redeliver queues the event again', async (t) => {
      const portal = await webhooksPortal(t, backend);
      const { client, email } = await signUp(portal);
      const { id } = await createEndpoint(client, { eventType: 'order.created' });
      const accountId = await accountOf(portal, email);
      await portal.services.orderOperations.createOrder({ accountId });
      // No engine runs here: make the delivery as its claim would.
      await portal.storage.webhooks.materializeDeliveries();
      const page = await client.get(`/webhooks/${id}`);
      assert.equal(page.statusCode, 200);
      for (const column of ['Event', 'Time', 'Status', 'Response', 'Duration', 'Next retry']) assert.ok(page.body.includes(`<th scope="col">${column}</th>`), column);
      const eventId = /name="eventId" value="(evt_[0-9a-f]{32})"/.exec(page.body)?.[1];
      assert.ok(eventId !== undefined, 'the delivery is listed with a Redeliver form');
      assert.match(page.body, />Redeliver<\/button>/);
      assert.match(pageText(page.body), /pending 0 attempts not sent yet/);

      const redelivered = await client.post(`/webhooks/${id}/redeliver`, { eventId });
      assert.equal(redelivered.statusCode, 303);
      assert.equal(redelivered.headers.location, `/webhooks/${id}?redelivered=${eventId}`);
      const deliveries = (await portal.services.webhooks.listDeliveries(accountId, id, undefined, 10)).items;
      assert.deepEqual(deliveries.map((delivery) => [delivery.eventId, delivery.status]), [[eventId, 'pending'], [eventId, 'pending']]);
      const after = await client.get(`/webhooks/${id}?redelivered=${eventId}`);
      assert.match(pageText(after.body), new RegExp(`Event ${eventId} was queued for delivery again\\.`));
      assert.equal(after.body.match(/>Redeliver<\/button>/g)?.length, 2);
      const unknown = await client.post(`/webhooks/${id}/redeliver`, { eventId: 'evt_00000000000000000000000000000000' });
      assert.equal(unknown.statusCode, 404);
    });

    test('when a user opens a delivery, then every attempt is shown with its headers and the payload; Send test event shows the test\'s outcome', async (t) => {
      const portal = await webhooksPortal(t, backend);
      const { client, email } = await signUp(portal);
      const { id } = await createEndpoint(client, { eventType: 'order.created' });
      const accountId = await accountOf(portal, email);
      await portal.services.orderOperations.createOrder({ accountId });
      await portal.storage.webhooks.materializeDeliveries();
      const [delivery] = (await portal.services.webhooks.listDeliveries(accountId, id, undefined, 10)).items;
      assert.ok(delivery);
      // An attempt as the engine records it (port 9 answers nothing here).
      const [claimed] = await portal.storage.webhooks.claimDue({ claimant: 'test', now: new Date(Date.now() + 1000).toISOString(), claimedUntil: new Date(Date.now() + 60_000).toISOString(), limit: 1 });
      assert.ok(claimed);
      await portal.storage.webhooks.markAttemptFailed({
        id: claimed.id,
        claimant: 'test',
        at: new Date().toISOString(),
        attempt: 1,
        durationMs: 12,
        statusCode: 503,
        error: 'The endpoint answered HTTP 503.',
        retryAt: new Date(Date.now() + 60_000).toISOString(),
        exchange: { requestHeaders: { 'webhook-id': claimed.eventId, 'webhook-signature': 'v1,c2lnbmF0dXJl' }, response: { headers: { 'retry-after': '60' }, body: '<b>busy</b>' } },
      });
      const list = await client.get(`/webhooks/${id}`);
      assert.match(list.body, new RegExp(`href="/webhooks/${id}/deliveries/${delivery.id}"`));
      const page = await client.get(`/webhooks/${id}/deliveries/${delivery.id}`);
      assert.equal(page.statusCode, 200);
      const text = pageText(page.body);
      for (const shown of ['Attempt 1: The endpoint answered HTTP 503.', 'webhook-signature: v1,c2lnbmF0dXJl', 'retry-after: 60', '<b>busy</b>', `"id":"${delivery.eventId}"`]) {
        assert.ok(text.includes(shown), shown);
      }
      assert.ok(!page.body.includes('<b>busy</b>'), 'the body is escaped');
      const other = await signUp(portal);
      assert.equal((await other.client.get(`/webhooks/${id}/deliveries/${delivery.id}`)).statusCode, 404);
      // Port 9 refuses: the test's outcome says so, on the endpoint's page.
      const tested = await client.post(`/webhooks/${id}/test`, {});
      assert.equal(tested.statusCode, 200);
      assert.match(pageText(tested.body), /Test event evt_[0-9a-f]{32} ?: The endpoint could not be reached/);
      assert.match(tested.body, />Send test event<\/button>/);
      // The attempt above is retried (a minute later): given up then, Recover queues it again.
      const [again] = await portal.storage.webhooks.claimDue({ claimant: 'test', now: new Date(Date.now() + 120_000).toISOString(), claimedUntil: new Date(Date.now() + 180_000).toISOString(), limit: 1 });
      assert.ok(again);
      await portal.storage.webhooks.markAttemptFailed({ id: again.id, claimant: 'test', at: new Date().toISOString(), error: 'gone away' });
      const recovered = await client.post(`/webhooks/${id}/recover`, { since: 'day' });
      assert.equal(recovered.statusCode, 303);
      assert.equal(recovered.headers.location, `/webhooks/${id}?recovered=1`);
      assert.match(pageText((await client.get(`/webhooks/${id}?recovered=1`)).body), /1 failed delivery was queued again\./);
    });

    test("when a user opens or changes another account's endpoint, then it is not found and nothing changes", async (t) => {
      const portal = await webhooksPortal(t, backend);
      const { client: owner, email } = await signUp(portal);
      const { id } = await createEndpoint(owner);
      const { client: other } = await signUp(portal);
      for (const path of [`/webhooks/${id}`, `/webhooks/${id}/delete`, `/webhooks/${id}/rotate`]) assert.equal((await other.get(path)).statusCode, 404, path);
      await other.get('/webhooks');
      for (const action of ['disable', 'delete', 'rotate']) assert.equal((await other.post(`/webhooks/${id}/${action}`, {})).statusCode, 404, action);
      assert.equal((await other.post(`/webhooks/${id}/redeliver`, { eventId: 'evt_00000000000000000000000000000000' })).statusCode, 404);
      assert.ok(!(await other.get('/webhooks')).body.includes(id), 'not listed');
      const endpoint = await portal.services.webhooks.getEndpoint(await accountOf(portal, email), id);
      assert.equal(endpoint.status, 'enabled');
    });

    test('when a form is forged (no token, another origin), then 403 and nothing changes', async (t) => {
      const portal = await webhooksPortal(t, backend);
      const { client, email } = await signUp(portal);
      const { id } = await createEndpoint(client);
      const accountId = await accountOf(portal, email);
      const fields = { url: HOOK_URL, eventType: 'order.created' };
      assert.equal((await client.post('/webhooks', fields, { csrf: null })).statusCode, 403);
      assert.equal((await client.post('/webhooks', fields, { origin: 'https://evil.example' })).statusCode, 403);
      for (const action of ['disable', 'delete', 'rotate']) assert.equal((await client.post(`/webhooks/${id}/${action}`, {}, { csrf: null })).statusCode, 403, action);
      assert.equal((await client.post(`/webhooks/${id}/delete`, {}, { csrf: 'forged' })).statusCode, 403);
      const endpoints = (await portal.services.webhooks.listEndpoints(accountId, undefined, 10)).items;
      assert.deepEqual(endpoints.map((endpoint) => [endpoint.id, endpoint.status]), [[id, 'enabled']]);
    });
  });
}

for (const backend of httpBackends()) {
  test(`when a user sets, changes and removes an endpoint's rate limit, then the endpoint has it, the page shows it, and a bad value is a form error (${backend.name})`, async (t) => {
    const portal = await webhooksPortal(t, backend);
    const { client, email } = await signUp(portal);
    const created = await createEndpoint(client, { rateLimit: '10' });
    assert.equal(created.response.statusCode, 201, created.response.body);
    const accountId = await accountOf(portal, email);
    assert.equal((await portal.services.webhooks.getEndpoint(accountId, created.id)).rateLimit, 10);
    const page = await client.get(`/webhooks/${created.id}`);
    assert.match(page.body, /id="rate-limit" name="rateLimit" type="number"[^>]*value="10"/);

    const lowered = await client.post(`/webhooks/${created.id}/rate-limit`, { rateLimit: '3' }, {}, `/webhooks/${created.id}`);
    assert.equal(lowered.statusCode, 200, lowered.body);
    assert.ok(pageText(lowered.body).includes('At most 3 deliveries a second now go to this endpoint.'));
    assert.equal((await portal.services.webhooks.getEndpoint(accountId, created.id)).rateLimit, 3);

    const tooMany = await client.post(`/webhooks/${created.id}/rate-limit`, { rateLimit: '20000' }, {}, `/webhooks/${created.id}`);
    assert.equal(tooMany.statusCode, 400);
    assert.match(pageText(tooMany.body), /rateLimit must be a whole number of deliveries a second, 1 to 10000\./);
    const words = await client.post(`/webhooks/${created.id}/rate-limit`, { rateLimit: 'fast' }, {}, `/webhooks/${created.id}`);
    assert.equal(words.statusCode, 400);
    assert.match(pageText(words.body), /Rate limit must be a whole number of deliveries a second, or empty for none\./);
    assert.equal((await portal.services.webhooks.getEndpoint(accountId, created.id)).rateLimit, 3, 'unchanged by a refused value');

    const removed = await client.post(`/webhooks/${created.id}/rate-limit`, { rateLimit: '' }, {}, `/webhooks/${created.id}`);
    assert.equal(removed.statusCode, 200);
    assert.ok(pageText(removed.body).includes('The rate limit was removed.'));
    assert.equal((await portal.services.webhooks.getEndpoint(accountId, created.id)).rateLimit, null);
  });
}
