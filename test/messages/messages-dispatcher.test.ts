import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer, type AddressInfo } from 'node:net';
import { describe, test, type TestContext } from 'node:test';
import { createMessagesUrlDelivery, recordOnlyDelivery, type MessageDelivery } from '../../src/messages/messages-delivery.js';
import { createMessageDispatcher, retryDelayMs } from '../../src/messages/messages-dispatcher.js';
import type { Clock } from '../../src/shared/clock.js';
import { openStorage } from '../../src/storage/open-storage.js';
import type { Storage } from '../../src/storage/storage.js';
import { createTenant, eventually, manualClock, startReceiver } from '../support/quickstart.js';
import { storageBackends } from '../support/storage.js';
import { capturingLogger } from '../support/logs.js';
import { testServices } from '../support/container.js';
import { testOutages } from '../support/app.js';

const RETRIES = { retryBaseMs: 1, retryMaxMs: 4, maxAttempts: 1000, pollIntervalMs: 10, webhookTimeoutMs: 5000 };

function startDispatcher(
  t: TestContext,
  storage: Storage,
  delivery: MessageDelivery,
  { clock = { now: () => new Date() }, config = RETRIES, random = () => 0.5 }: { clock?: Clock; config?: typeof RETRIES; random?: () => number } = {},
) {
  const { logger, logs } = capturingLogger();
  const dispatcher = createMessageDispatcher({ messagesRepository: storage.messages, delivery, clock, logger, outages: testOutages(logger, storage), config, random });
  dispatcher.start();
  t.after(() => dispatcher.stop());
  return { dispatcher, logs };
}

async function statusOf(storage: Storage, accountId: number, id: string) {
  return (await storage.messages.findForAccount(accountId, id))?.status;
}

describe('retryDelayMs', () => {
  test('when attempts grow, then the delay doubles from the base, is capped, and jitter stays in the upper half', () => {
    const config = { retryBaseMs: 1000, retryMaxMs: 60_000 };
    assert.deepEqual([1, 2, 3, 4, 5, 6, 7, 8].map((n) => retryDelayMs(n, config, 1)), [1000, 2000, 4000, 8000, 16000, 32000, 60000, 60000]);
    assert.deepEqual([1, 2, 3].map((n) => retryDelayMs(n, config, 0)), [500, 1000, 2000]);
    assert.equal(retryDelayMs(10_000, config, 0.999), 59970);
  });
});

for (const backend of storageBackends()) {
  describe(`messages dispatcher (${backend.name})`, () => {
    test('when there is no webhook, then a queued message is recorded as sent', async (t) => {
      const { storage } = await backend.freshDatabase(t);
      const services = testServices(storage);
      const { account } = await createTenant(services, 'A');
      const { message } = await services.messages.queueMessage({ accountId: account.id, message: 'hello' });
      startDispatcher(t, storage, recordOnlyDelivery);
      await eventually(async () => ((await statusOf(storage, account.id, message.id)) === 'sent' ? true : undefined));
      const stored = await storage.messages.findForAccount(account.id, message.id);
      assert.equal(stored?.attempts, 1);
      assert.ok(stored?.sentAt);
    });

    test('when the webhook accepts, then it receives the message as JSON with its id as Idempotency-Key, and the message is sent', async (t) => {
      const { storage } = await backend.freshDatabase(t);
      const services = testServices(storage);
      const { account } = await createTenant(services, 'A');
      const receiver = await startReceiver(t, () => 204);
      const { message } = await services.messages.queueMessage({ accountId: account.id, message: 'Grüße 🐾' });
      startDispatcher(t, storage, createMessagesUrlDelivery({ url: receiver.url, timeoutMs: 5000 }));
      const [request] = await receiver.next(1);
      assert.ok(request);
      assert.equal(request.headers['content-type'], 'application/json');
      assert.equal(request.headers['idempotency-key'], message.id);
      assert.deepEqual(JSON.parse(request.body), { id: message.id, accountId: account.id, message: 'Grüße 🐾', createdAt: message.createdAt });
      await eventually(async () => ((await statusOf(storage, account.id, message.id)) === 'sent' ? true : undefined));
    });

    test('when the webhook fails twice (500, then a redirect), then the message is retried and sent on the third attempt', async (t) => {
      const { storage } = await backend.freshDatabase(t);
      const services = testServices(storage);
      const { account } = await createTenant(services, 'A');
      const receiver = await startReceiver(t, (_request, index) => [500, 302, 200][index] ?? 200);
      const { message } = await services.messages.queueMessage({ accountId: account.id, message: 'retry me' });
      const { logs } = startDispatcher(t, storage, createMessagesUrlDelivery({ url: receiver.url, timeoutMs: 5000 }));
      const requests = await receiver.next(3);
      assert.deepEqual(new Set(requests.map((r) => r.headers['idempotency-key'])), new Set([message.id]));
      await eventually(async () => ((await statusOf(storage, account.id, message.id)) === 'sent' ? true : undefined));
      assert.equal((await storage.messages.findForAccount(account.id, message.id))?.attempts, 3);
      const text = logs.join('');
      assert.match(text, /The webhook answered HTTP 500/);
      // The URL carries a token: it never reaches the logs.
      assert.ok(!text.includes('s3cret'));
    });

    test('when the webhook keeps failing, then the message is failed after maxAttempts and not tried again', async (t) => {
      const { storage } = await backend.freshDatabase(t);
      const services = testServices(storage);
      const { account } = await createTenant(services, 'A');
      const receiver = await startReceiver(t, () => 503);
      const { message } = await services.messages.queueMessage({ accountId: account.id, message: 'doomed' });
      startDispatcher(t, storage, createMessagesUrlDelivery({ url: receiver.url, timeoutMs: 5000 }), { config: { ...RETRIES, maxAttempts: 3 } });
      await eventually(async () => ((await statusOf(storage, account.id, message.id)) === 'failed' ? true : undefined));
      assert.equal(receiver.received.length, 3);
      assert.deepEqual(await storage.messages.claimDue({ claimant: 'probe', now: '9999-12-31T00:00:00.000Z', claimedUntil: '9999-12-31T00:00:00.000Z', limit: 10 }), []);
    });

    test('when the webhook cannot be reached, then the attempt fails and the retry is scheduled with exponential back-off', async (t) => {
      const { storage } = await backend.freshDatabase(t);
      const clock = manualClock();
      const services = testServices(storage, { clock: clock });
      const { account } = await createTenant(services, 'A');
      // A port that was just free: nothing listens there.
      const probe = createServer().listen(0, '127.0.0.1');
      await once(probe, 'listening');
      const { port } = probe.address() as AddressInfo;
      await new Promise((resolve) => probe.close(resolve));
      const closedPort = new URL(`http://127.0.0.1:${port}/hook`);
      const { message } = await services.messages.queueMessage({ accountId: account.id, message: 'unreachable' });
      const config = { ...RETRIES, retryBaseMs: 1000, retryMaxMs: 600_000 };
      const { dispatcher, logs } = startDispatcher(t, storage, createMessagesUrlDelivery({ url: closedPort.toString(), timeoutMs: 5000 }), { clock, config, random: () => 0 });
      // The clock stands still, so after this one failure nothing is due again until the test moves time.
      await eventually(async () => (logs.join('').includes('will retry') ? true : undefined));
      await dispatcher.stop();
      assert.match(logs.join(''), /The webhook could not be reached \(ECONNREFUSED\)/);
      // Due again exactly 500 ms later: base/2 with no jitter.
      const dueAt = (offsetMs: number) =>
        storage.messages.claimDue({
          claimant: 'probe',
          now: new Date(clock.now().getTime() + offsetMs).toISOString(),
          claimedUntil: '9999-12-31T00:00:00.000Z',
          limit: 1,
        });
      assert.deepEqual(await dueAt(499), []);
      const [due] = await dueAt(500);
      assert.equal(due?.id, message.id);
      assert.equal(due?.attempts, 2);
    });

    test('when a dispatcher stops while a delivery hangs, then the message is released, still queued and not counted', async (t) => {
      const { storage } = await backend.freshDatabase(t);
      const services = testServices(storage);
      const { account } = await createTenant(services, 'A');
      const receiver = await startReceiver(t, () => 'hang');
      const { message } = await services.messages.queueMessage({ accountId: account.id, message: 'interrupted' });
      const { dispatcher } = startDispatcher(t, storage, createMessagesUrlDelivery({ url: receiver.url, timeoutMs: 60_000 }));
      await receiver.next(1);
      await dispatcher.stop();
      const stored = await storage.messages.findForAccount(account.id, message.id);
      assert.equal(stored?.status, 'queued');
      assert.equal(stored?.attempts, 0);
      const [due] = await storage.messages.claimDue({ claimant: 'probe', now: new Date().toISOString(), claimedUntil: '9999-12-31T00:00:00.000Z', limit: 1 });
      assert.equal(due?.id, message.id);
    });

    test('when three dispatchers on separate connections share one database, then each of 60 messages is delivered exactly once', async (t) => {
      const { config, storage } = await backend.freshDatabase(t);
      const services = testServices(storage);
      const { account } = await createTenant(services, 'A');
      const ids = new Set<string>();
      for (let i = 0; i < 60; i++) ids.add((await services.messages.queueMessage({ accountId: account.id, message: `m${i}` })).message.id);
      const receiver = await startReceiver(t, () => 200);
      for (let i = 0; i < 3; i++) {
        const connection = openStorage(config);
        startDispatcher(t, connection, createMessagesUrlDelivery({ url: receiver.url, timeoutMs: 5000 }));
        // After the dispatcher's own after(), so it closes once the dispatcher has stopped (node:test runs them in the order added).
        t.after(() => connection.close());
      }
      const requests = await receiver.next(60);
      await eventually(async () => {
        for (const id of ids) if ((await statusOf(storage, account.id, id)) !== 'sent') return undefined;
        return true;
      });
      const delivered = requests.map((r) => String(r.headers['idempotency-key']));
      assert.equal(receiver.received.length, 60);
      assert.deepEqual(new Set(delivered), ids);
    });

    test('when a claim lapses (its holder died), then another dispatcher takes the message and the old holder cannot settle it', async (t) => {
      const { storage } = await backend.freshDatabase(t);
      const services = testServices(storage);
      const { account } = await createTenant(services, 'A');
      const { message } = await services.messages.queueMessage({ accountId: account.id, message: 'orphan' });
      const t0 = Date.parse(message.createdAt);
      const at = (ms: number) => new Date(t0 + ms).toISOString();
      const [first] = await storage.messages.claimDue({ claimant: 'dead', now: at(0), claimedUntil: at(1000), limit: 10 });
      assert.equal(first?.id, message.id);
      assert.deepEqual(await storage.messages.claimDue({ claimant: 'other', now: at(999), claimedUntil: at(2000), limit: 10 }), []);
      const [second] = await storage.messages.claimDue({ claimant: 'other', now: at(1000), claimedUntil: at(2000), limit: 10 });
      assert.equal(second?.id, message.id);
      assert.equal(second?.attempts, 2);
      assert.equal(await storage.messages.markSent({ id: message.id, claimant: 'dead', at: at(1500) }), false);
      assert.equal(await storage.messages.markSent({ id: message.id, claimant: 'other', at: at(1500) }), true);
      assert.equal(await storage.messages.markAttemptFailed({ id: message.id, claimant: 'other', at: at(1600), error: 'late' }), false);
      assert.equal(await statusOf(storage, account.id, message.id), 'sent');
    });
  });
}

for (const backend of storageBackends()) {
  test(`when ten connections claim concurrently, then each of 100 due messages is claimed exactly once (${backend.name})`, async (t) => {
    const { config, storage } = await backend.freshDatabase(t);
    const services = testServices(storage);
    const { account } = await createTenant(services, 'A');
    const ids = new Set<string>();
    for (let i = 0; i < 100; i++) ids.add((await services.messages.queueMessage({ accountId: account.id, message: `m${i}` })).message.id);
    const connections = Array.from({ length: 10 }, () => openStorage(config));
    t.after(() => Promise.all(connections.map((c) => c.close())));
    const now = new Date(Date.now() + 1000).toISOString();
    const claimedUntil = new Date(Date.now() + 60_000).toISOString();
    const claimed: string[] = [];
    await Promise.all(
      connections.map(async (connection, index) => {
        for (;;) {
          const batch = await connection.messages.claimDue({ claimant: `c${index}`, now, claimedUntil, limit: 3 });
          if (batch.length === 0) return;
          claimed.push(...batch.map((m) => m.id));
        }
      }),
    );
    assert.equal(claimed.length, 100);
    assert.deepEqual(new Set(claimed), ids);
  });
}
