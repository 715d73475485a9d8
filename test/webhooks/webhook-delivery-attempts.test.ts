import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, test, type TestContext } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { eventually } from '../support/quickstart.js';
import { storageBackends } from '../support/storage.js';
import { webhooksHarness } from './support.js';

const ENV = {
  WEBHOOK_ALLOW_HTTP: 'true',
  WEBHOOK_ALLOWED_NETWORKS: '127.0.0.0/8',
  WEBHOOK_RETRY_SCHEDULE: '100ms,100ms',
  WEBHOOK_TIMEOUT_MS: '2000',
};

interface Attempt {
  attempt: number;
  at: string;
  durationMs: number | null;
  statusCode: number | null;
  error: string | null;
  request: { headers: Record<string, string> };
  response: { headers: Record<string, string>; body: string } | null;
}

/** A loopback receiver whose answers `answer` writes (the request's body in hand); its URL, closed when the test ends. */
async function receiver(t: TestContext, answer: (response: ServerResponse, body: string, headers: IncomingHttpHeaders) => void): Promise<string> {
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => answer(response, Buffer.concat(chunks).toString('utf8'), request.headers));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  t.after(() => {
    server.closeAllConnections();
    server.close();
  });
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
}

// Storage writes the attempts: every backend.
for (const backend of storageBackends()) {
  describe(`a delivery's attempts (${backend.name})`, () => {
    test('when a delivery fails with 503 and then succeeds, then GET …/deliveries/{id} shows both attempts: the signed request headers, and each answer\'s status, headers and first 4 KB of body', async (t) => {
      const h = await webhooksHarness(t, backend, ENV);
      const store = await h.tenant();
      let calls = 0;
      const url = await receiver(t, (response) => {
        calls++;
        if (calls === 1) response.writeHead(503, { 'x-why': 'busy', 'content-type': 'text/plain' }).end(`try later ${'x'.repeat(5000)}`);
        else response.writeHead(204, { 'x-why': 'fine' }).end();
      });
      const created = await h.app.inject({ method: 'POST', url: '/v2/webhook-endpoints', headers: { ...store.auth, 'content-type': 'application/json' }, payload: { url, eventTypes: ['order.created'] } });
      const { id: endpointId, secret } = created.json<{ id: string; secret: string }>();
      h.startEngine();
      await h.services.orderOperations.createOrder({ accountId: store.accountId });
      const listed = await eventually(async () => {
        const page = (await h.app.inject({ method: 'GET', url: `/v2/webhook-endpoints/${endpointId}/deliveries`, headers: store.auth })).json<{ data: { id: string; status: string }[] }>();
        return page.data[0]?.status === 'succeeded' ? page.data[0] : undefined;
      });
      const answer = await h.app.inject({ method: 'GET', url: `/v2/webhook-endpoints/${endpointId}/deliveries/${listed.id}`, headers: store.auth });
      assert.equal(answer.statusCode, 200, answer.body);
      const detail = answer.json<{ id: string; eventId: string; status: string; attempts: number; attemptLog: Attempt[] }>();
      assert.deepEqual([detail.status, detail.attempts, detail.attemptLog.map((a) => [a.attempt, a.statusCode, a.error])], [
        'succeeded',
        2,
        [
          [1, 503, 'The endpoint answered HTTP 503.'],
          [2, 204, null],
        ],
      ]);
      const [first, second] = detail.attemptLog as [Attempt, Attempt];
      assert.equal(first.response?.headers['x-why'], 'busy');
      assert.equal(first.response?.body.length, 4096, 'the first 4 KB of the body');
      assert.ok(first.response?.body.startsWith('try later '));
      assert.equal(second.response?.headers['x-why'], 'fine');
      assert.equal(first.request.headers['webhook-id'], detail.eventId);
      // The recorded signature verifies against the event, as the endpoint received it.
      const stored = await h.storage.webhooks.findDelivery(store.accountId, endpointId, listed.id);
      assert.ok(stored);
      assert.doesNotThrow(() => new Webhook(secret).verify(stored.payload, second.request.headers));
      // Never the secret itself.
      assert.ok(!answer.body.includes(secret.replace(/^whsec_/, '')));
      // Another endpoint's delivery id, or none: 404.
      const missing = await h.app.inject({ method: 'GET', url: `/v2/webhook-endpoints/${endpointId}/deliveries/999999`, headers: store.auth });
      assert.deepEqual([missing.statusCode, missing.json<{ code: string }>().code], [404, 'webhook_delivery_not_found']);
      const other = await h.tenant();
      assert.equal((await h.app.inject({ method: 'GET', url: `/v2/webhook-endpoints/${endpointId}/deliveries/${listed.id}`, headers: other.auth })).statusCode, 404);
    });

    test('when a test event is sent, then the endpoint gets one signed webhook.test and the answer is that attempt; nothing is queued or in the feed', async (t) => {
      const h = await webhooksHarness(t, backend, ENV);
      const store = await h.tenant();
      const received: { headers: IncomingHttpHeaders; body: string }[] = [];
      const url = await receiver(t, (response, body, headers) => {
        received.push({ headers, body });
        response.writeHead(received.length === 1 ? 200 : 500, { 'x-seen': String(received.length) }).end('thanks');
      });
      const created = await h.app.inject({ method: 'POST', url: '/v2/webhook-endpoints', headers: { ...store.auth, 'content-type': 'application/json' }, payload: { url, eventTypes: ['order.created'] } });
      const { id: endpointId, secret } = created.json<{ id: string; secret: string }>();
      const sent = await h.app.inject({ method: 'POST', url: `/v2/webhook-endpoints/${endpointId}/test`, headers: store.auth });
      assert.equal(sent.statusCode, 200, sent.body);
      const result = sent.json<{ eventId: string; delivered: boolean; attempt: Attempt }>();
      assert.equal(result.delivered, true);
      assert.equal(result.attempt.statusCode, 200);
      assert.equal(result.attempt.response?.headers['x-seen'], '1');
      assert.equal(result.attempt.response?.body, 'thanks');
      const [arrived] = received;
      assert.ok(arrived);
      const event = JSON.parse(arrived.body) as { id: string; type: string; data: { endpoint: { id: string } } };
      assert.deepEqual([event.id, event.type, event.data.endpoint.id], [result.eventId, 'webhook.test', endpointId]);
      assert.doesNotThrow(() => new Webhook(secret).verify(arrived.body, arrived.headers as Record<string, string>));
      // A failed test is an answer, not an error; nothing was queued, nothing is in the feed.
      const failed = (await h.app.inject({ method: 'POST', url: `/v2/webhook-endpoints/${endpointId}/test`, headers: store.auth })).json<{ delivered: boolean; attempt: Attempt }>();
      assert.deepEqual([failed.delivered, failed.attempt.statusCode, failed.attempt.error], [false, 500, 'The endpoint answered HTTP 500.']);
      const deliveries = (await h.app.inject({ method: 'GET', url: `/v2/webhook-endpoints/${endpointId}/deliveries`, headers: store.auth })).json<{ data: unknown[] }>();
      assert.equal(deliveries.data.length, 0);
      const feed = (await h.app.inject({ method: 'GET', url: '/v2/events', headers: store.auth })).json<{ data: unknown[] }>();
      assert.equal(feed.data.length, 0);
      const other = await h.tenant();
      assert.equal((await h.app.inject({ method: 'POST', url: `/v2/webhook-endpoints/${endpointId}/test`, headers: other.auth })).statusCode, 404);
    });

    test('when the endpoint refuses connections, then the attempt is recorded with the error in words and no response', async (t) => {
      const h = await webhooksHarness(t, backend, { ...ENV, WEBHOOK_RETRY_SCHEDULE: '1h' });
      const store = await h.tenant();
      const refusing = createServer();
      refusing.listen(0, '127.0.0.1');
      await once(refusing, 'listening');
      const port = (refusing.address() as AddressInfo).port;
      refusing.close();
      const created = await h.app.inject({ method: 'POST', url: '/v2/webhook-endpoints', headers: { ...store.auth, 'content-type': 'application/json' }, payload: { url: `http://127.0.0.1:${port}/gone`, eventTypes: ['order.created'] } });
      const endpointId = created.json<{ id: string }>().id;
      h.startEngine();
      await h.services.orderOperations.createOrder({ accountId: store.accountId });
      const delivery = await eventually(async () => {
        const page = (await h.app.inject({ method: 'GET', url: `/v2/webhook-endpoints/${endpointId}/deliveries`, headers: store.auth })).json<{ data: { id: string; attempts: number; lastAttemptAt: string | null }[] }>();
        return page.data[0]?.lastAttemptAt === null ? undefined : page.data[0];
      });
      const detail = (await h.app.inject({ method: 'GET', url: `/v2/webhook-endpoints/${endpointId}/deliveries/${delivery.id}`, headers: store.auth })).json<{ attemptLog: Attempt[] }>();
      assert.equal(detail.attemptLog.length, 1);
      const [only] = detail.attemptLog as [Attempt];
      assert.equal(only.statusCode, null);
      assert.equal(only.response, null);
      assert.match(only.error ?? '', /could not be reached \(ECONNREFUSED\)/);
      assert.ok(only.request.headers['webhook-signature']?.startsWith('v1,'));
    });
  });
}
