import { testOutages } from '../support/app.js';
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createWebhooksDispatcher } from '../../src/composition.js';
import { capturingLogger } from '../support/logs.js';
import { eventually } from '../support/quickstart.js';
import { sqliteBackend } from '../support/storage.js';
import { startHookReceiver, webhooksHarness } from './support.js';

const ENV = {
  WEBHOOK_ALLOW_HTTP: 'true',
  WEBHOOK_ALLOWED_NETWORKS: '127.0.0.0/8',
  WEBHOOK_POLL_INTERVAL_MS: '600000',
};

test('when the process is busy serving requests, then the engine asks after each slice of its own work and rests, but still delivers everything', async (t) => {
  const h = await webhooksHarness(t, sqliteBackend, ENV);
  const { accountId, auth } = await h.tenant();
  const receiver = await startHookReceiver(t);
  await h.app.inject({ method: 'POST', url: '/v2/webhook-endpoints', headers: { ...auth, 'content-type': 'application/json' }, payload: { url: receiver.url, eventTypes: ['order.created'] } });
  for (let i = 0; i < 300; i++) await h.services.orderOperations.createOrder({ accountId });
  let asked = 0;
  const { logger } = capturingLogger();
  const engine = createWebhooksDispatcher({ config: h.config, storage: h.storage, services: h.services }, logger, testOutages(logger, h.storage), undefined, () => {
    asked++;
    return { busy: true, quiet: false };
  });
  engine.start();
  t.after(() => engine.stop());
  const requests = await receiver.next(300);
  assert.equal(new Set(requests.map((r) => r.headers['webhook-id'])).size, 300);
  // 300 signed deliveries, their claims and settlements take the engine more than one 5 ms slice.
  await eventually(async () => (asked >= 1 ? true : undefined));
});

test('when the process is busy and a receiver takes a second to answer, then the engine rests for its own work only, not for the second it waited', async (t) => {
  const h = await webhooksHarness(t, sqliteBackend, ENV);
  const { accountId, auth } = await h.tenant();
  const receiver = await startHookReceiver(t, () => 'hang');
  await h.app.inject({ method: 'POST', url: '/v2/webhook-endpoints', headers: { ...auth, 'content-type': 'application/json' }, payload: { url: receiver.url, eventTypes: ['order.created'] } });
  const { logger } = capturingLogger();
  // Always busy: the engine yields as much as it ever would.
  const engine = createWebhooksDispatcher({ config: { ...h.config, webhooks: { ...h.config.webhooks, timeoutMs: 1000 } }, storage: h.storage, services: h.services }, logger, testOutages(logger, h.storage), undefined, () => ({ busy: true, quiet: false }));
  engine.start();
  t.after(() => engine.stop());
  // The first delivery times out after a second of waiting (the receiver never answers).
  await h.services.orderOperations.createOrder({ accountId });
  await receiver.next(1);
  await new Promise((resolve) => setTimeout(resolve, 1200));
  // Resting in proportion to that second (nine more, as the engine once did) would hold the next one back for 9 s.
  const started = Date.now();
  await h.services.orderOperations.createOrder({ accountId });
  await receiver.next(2);
  assert.ok(Date.now() - started < 4000, `the next delivery took ${Date.now() - started} ms`);
});
