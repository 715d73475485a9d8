import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { openStorage } from '../../src/storage/open-storage.js';
import type { Storage } from '../../src/storage/storage.js';
import { errorBody } from '../support/app.js';
import { createTestQuickstartApp, manualClock } from '../support/quickstart.js';
import { storageBackends } from '../support/storage.js';

const JSON_TYPE = { 'content-type': 'application/json' };
const DAY_MS = 24 * 60 * 60 * 1000;

/** Every queued message in the database (claims them, so use last). */
async function allQueued(storage: Storage) {
  return storage.messages.claimDue({ claimant: 'probe', now: '9999-12-31T00:00:00.000Z', claimedUntil: '9999-12-31T00:00:00.000Z', limit: 1000 });
}

for (const backend of storageBackends()) {
  describe(`Idempotency-Key on POST /messages (${backend.name})`, () => {
    test('when the same key and body are sent again, then the first response is replayed and one message exists', async (t) => {
      const { app, storage, tenant } = await createTestQuickstartApp(t, backend);
      const { auth } = await tenant();
      const headers = { ...auth, ...JSON_TYPE, 'idempotency-key': 'order-42-confirmation' };
      const first = await app.inject({ method: 'POST', url: '/messages', headers, payload: '{"message":"Your order shipped"}' });
      // Same body, different formatting: the same request.
      const second = await app.inject({ method: 'POST', url: '/messages', headers, payload: '{ "message" : "Your order shipped" }' });
      assert.equal(first.statusCode, 202);
      assert.equal(second.statusCode, 202);
      assert.equal(first.headers['idempotent-replayed'], undefined);
      assert.equal(second.headers['idempotent-replayed'], 'true');
      assert.equal(second.body, first.body);
      assert.equal(second.headers.location, first.headers.location);
      assert.equal((await allQueued(storage)).length, 1);
    });

    test('when the message was sent meanwhile, then the replay is still the original 202 response', async (t) => {
      const { app, storage, tenant } = await createTestQuickstartApp(t, backend);
      const { auth } = await tenant();
      const headers = { ...auth, ...JSON_TYPE, 'idempotency-key': 'k1' };
      const first = await app.inject({ method: 'POST', url: '/messages', headers, payload: { message: 'hi' } });
      const [claimed] = await allQueued(storage);
      assert.ok(claimed);
      await storage.messages.markSent({ id: claimed.id, claimant: 'probe', at: new Date().toISOString() });
      const replay = await app.inject({ method: 'POST', url: '/messages', headers, payload: { message: 'hi' } });
      assert.equal(replay.statusCode, 202);
      assert.equal(replay.body, first.body);
      const current = await app.inject({ method: 'GET', url: String(first.headers.location), headers: auth });
      assert.equal(current.json<{ status: string }>().status, 'sent');
    });

    test('when the same key comes with a different body, then 422 idempotency_key_reused and nothing new is queued', async (t) => {
      const { app, storage, tenant } = await createTestQuickstartApp(t, backend);
      const { auth } = await tenant();
      const headers = { ...auth, ...JSON_TYPE, 'idempotency-key': 'k2' };
      await app.inject({ method: 'POST', url: '/messages', headers, payload: { message: 'one' } });
      const response = await app.inject({ method: 'POST', url: '/messages', headers, payload: { message: 'two' } });
      assert.equal(response.statusCode, 422);
      assert.equal(errorBody(response).code, 'idempotency_key_reused');
      assert.equal((await allQueued(storage)).length, 1);
    });

    test('when two accounts use the same key, then each gets its own message', async (t) => {
      const { app, tenant } = await createTestQuickstartApp(t, backend);
      const a = await tenant('A');
      const b = await tenant('B');
      const first = await app.inject({ method: 'POST', url: '/messages', headers: { ...a.auth, ...JSON_TYPE, 'idempotency-key': 'shared' }, payload: { message: 'x' } });
      const second = await app.inject({ method: 'POST', url: '/messages', headers: { ...b.auth, ...JSON_TYPE, 'idempotency-key': 'shared' }, payload: { message: 'x' } });
      assert.equal(second.statusCode, 202);
      assert.equal(second.headers['idempotent-replayed'], undefined);
      assert.notEqual(second.json<{ id: string }>().id, first.json<{ id: string }>().id);
    });

    test('when a key is reused just under 24 hours later, then it replays; past 24 hours, then it queues a new message', async (t) => {
      const clock = manualClock();
      const { app, tenant } = await createTestQuickstartApp(t, backend, { clock });
      const { auth } = await tenant();
      const send = (message: string) =>
        app.inject({ method: 'POST', url: '/messages', headers: { ...auth, ...JSON_TYPE, 'idempotency-key': 'daily' }, payload: { message } });
      const first = await send('hello');
      clock.advance(DAY_MS - 1);
      const replay = await send('hello');
      assert.equal(replay.headers['idempotent-replayed'], 'true');
      assert.equal(replay.body, first.body);
      clock.advance(1);
      const fresh = await send('a different body is fine now');
      assert.equal(fresh.statusCode, 202);
      assert.equal(fresh.headers['idempotent-replayed'], undefined);
      assert.notEqual(fresh.json<{ id: string }>().id, first.json<{ id: string }>().id);
      // The old message is still there; only the key moved on.
      const old = await app.inject({ method: 'GET', url: String(first.headers.location), headers: auth });
      assert.equal(old.statusCode, 200);
    });

    for (const [name, key] of [
      ['empty', ''],
      ['256 characters long', 'k'.repeat(256)],
      ['not ASCII', 'clé'],
    ] as const) {
      test(`when the key is ${name}, then 400 validation_failed`, async (t) => {
        const { app, tenant } = await createTestQuickstartApp(t, backend);
        const { auth } = await tenant();
        const response = await app.inject({ method: 'POST', url: '/messages', headers: { ...auth, ...JSON_TYPE, 'idempotency-key': key }, payload: { message: 'x' } });
        assert.equal(response.statusCode, 400);
        assert.equal(errorBody(response).code, 'validation_failed');
      });
    }

    test('when the key is 255 characters long, then it is accepted', async (t) => {
      const { app, tenant } = await createTestQuickstartApp(t, backend);
      const { auth } = await tenant();
      const headers = { ...auth, ...JSON_TYPE, 'idempotency-key': 'k'.repeat(255) };
      const first = await app.inject({ method: 'POST', url: '/messages', headers, payload: { message: 'x' } });
      const second = await app.inject({ method: 'POST', url: '/messages', headers, payload: { message: 'x' } });
      assert.equal(first.statusCode, 202);
      assert.equal(second.headers['idempotent-replayed'], 'true');
    });

    test('when the first use of a key was refused as invalid, then the key is still free', async (t) => {
      const { app, tenant } = await createTestQuickstartApp(t, backend);
      const { auth } = await tenant();
      const headers = { ...auth, ...JSON_TYPE, 'idempotency-key': 'retry-after-fix' };
      const refused = await app.inject({ method: 'POST', url: '/messages', headers, payload: { message: '' } });
      assert.equal(refused.statusCode, 400);
      const accepted = await app.inject({ method: 'POST', url: '/messages', headers, payload: { message: 'fixed' } });
      assert.equal(accepted.statusCode, 202);
      assert.equal(accepted.headers['idempotent-replayed'], undefined);
    });

    test('when 20 duplicates race through two servers on one database, then exactly one message is created', async (t) => {
      const { config, storage } = await backend.freshDatabase(t);
      const { app, tenant } = await createTestQuickstartApp(t, backend, { storage });
      const { auth } = await tenant();
      // A second "server": its own connection to the same database.
      const secondStorage = openStorage(config);
      t.after(() => secondStorage.close());
      const { app: other } = await createTestQuickstartApp(t, backend, { storage: secondStorage });
      const headers = { ...auth, ...JSON_TYPE, 'idempotency-key': 'race' };
      const responses = await Promise.all(
        Array.from({ length: 20 }, (_, i) => (i % 2 === 0 ? app : other).inject({ method: 'POST', url: '/messages', headers, payload: { message: 'once' } })),
      );
      const ids = new Set(responses.map((r) => r.json<{ id: string }>().id));
      assert.deepEqual(responses.map((r) => r.statusCode), Array(20).fill(202));
      assert.equal(ids.size, 1);
      assert.equal(responses.filter((r) => r.headers['idempotent-replayed'] === undefined).length, 1);
      assert.equal((await allQueued(storage)).length, 1);
    });
  });
}

