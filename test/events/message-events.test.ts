import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createMessagesUrlDelivery, recordOnlyDelivery } from '../../src/messages/messages-delivery.js';
import { createMessageDispatcher } from '../../src/messages/messages-dispatcher.js';
import { testOutages } from '../support/app.js';
import { capturingLogger } from '../support/logs.js';
import { testServices } from '../support/container.js';
import { createTenant, eventually, startReceiver } from '../support/quickstart.js';
import { httpBackends } from '../support/storage.js';

const CONFIG = { retryBaseMs: 1, retryMaxMs: 4, pollIntervalMs: 10, webhookTimeoutMs: 5000 };

for (const backend of httpBackends()) {
  describe(`message events from the dispatcher (${backend.name})`, () => {
    test('when the dispatcher delivers one message and gives another up, then the feed has message.sent and message.failed, one each, with the message', async (t) => {
      const { storage } = await backend.freshDatabase(t);
      const services = testServices(storage);
      const { account } = await createTenant(services, 'A');
      const { logger } = capturingLogger();
      const feed = async () => (await services.events.listEvents(account.id, { filter: {}, limit: 50 })).events.map((e) => JSON.parse(e.payload) as { type: string; data: { message: { id: string; status: string; message: string } } });

      const { message: sent } = await services.messages.queueMessage({ accountId: account.id, message: 'Grüße 🐾 "quoted"' });
      const recording = createMessageDispatcher({ messagesRepository: storage.messages, delivery: recordOnlyDelivery, clock: { now: () => new Date() }, logger, outages: testOutages(logger, storage), config: { ...CONFIG, maxAttempts: 3 } });
      recording.start();
      await eventually(async () => ((await feed()).length === 1 ? true : undefined));
      await recording.stop();

      const receiver = await startReceiver(t, () => 500);
      const { message: failed } = await services.messages.queueMessage({ accountId: account.id, message: 'never delivered' });
      const failing = createMessageDispatcher({
        messagesRepository: storage.messages,
        delivery: createMessagesUrlDelivery({ url: receiver.url, timeoutMs: 5000 }),
        clock: { now: () => new Date() },
        logger,
        outages: testOutages(logger, storage),
        config: { ...CONFIG, maxAttempts: 2 },
      });
      failing.start();
      t.after(() => failing.stop());
      await eventually(async () => ((await feed()).length === 2 ? true : undefined));
      await failing.stop();

      assert.deepEqual(
        (await feed()).map((e) => [e.type, e.data.message.id, e.data.message.status, e.data.message.message]),
        [
          ['message.sent', sent.id, 'sent', 'Grüße 🐾 "quoted"'],
          ['message.failed', failed.id, 'failed', 'never delivered'],
        ],
      );
      assert.equal((await receiver.next(2)).length, 2, 'two attempts, one event');
    });
  });
}
