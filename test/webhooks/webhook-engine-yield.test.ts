import { testOutages } from '../support/app.js';
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createWebhooksDispatcher } from '../../src/composition.js';
import { capturingLogger } from '../support/logs.js';
import { eventually } from '../support/quickstart.js';
import { sqliteBackend } from '../support/storage.js';
import { startHookReceiver, webhooksHarness } from './support.js';

test('when the process is busy serving requests, then the engine rests between batches but still delivers everything', async (t) => {
  const h = await webhooksHarness(t, sqliteBackend);
  const { accountId, auth } = await h.tenant();
  const receiver = await startHookReceiver(t);
  await h.app.inject({ method: 'POST', url: '/v2/webhook-endpoints', headers: { ...auth, 'content-type': 'application/json' }, payload: { url: receiver.url, eventTypes: ['order.created'] } });
  for (let i = 0; i < 100; i++) await h.services.orderOperations.createOrder({ accountId });
  let asked = 0;
  const { logger } = capturingLogger();
  const engine = createWebhooksDispatcher({ config: h.config, storage: h.storage, services: h.services }, logger, testOutages(logger, h.storage), undefined, () => {
    asked++;
    return true;
  });
  engine.start();
  t.after(() => engine.stop());
  const requests = await receiver.next(100);
  assert.equal(new Set(requests.map((r) => r.headers['webhook-id'])).size, 100);
  // 100 deliveries in batches of at most 64: asked after each batch is settled.
  await eventually(async () => (asked >= 2 ? true : undefined));
});
