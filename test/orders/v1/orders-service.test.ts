import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { AppError } from '../../../src/errors/errors.js';
import type { Clock } from '../../../src/shared/clock.js';
import { storageBackends } from '../../support/storage.js';
import { testServices } from '../../support/container.js';
import { API_KEY_SCOPES } from '../../../src/api-keys/api-key-scopes.js';

const fixedClock: Clock = { now: () => new Date('2026-11-21T12:00:00.000Z') };

function rejectsWith(code: string) {
  return (error: unknown) => error instanceof AppError && error.code === code;
}

for (const backend of storageBackends()) {
  describe(`orders service (${backend.name})`, () => {
    async function setup(t: Parameters<typeof backend.freshDatabase>[0]) {
      const { storage } = await backend.freshDatabase(t);
      const services = testServices(storage, { clock: fixedClock });
      const account = await services.accounts.createAccount({ name: 'Pets & Co' });
      return { services, account };
    }

    test('when an order is created, then it is pending with the ship date normalised to UTC', async (t) => {
      const { services, account } = await setup(t);
      const order = await services.orderOperations.createOrder({ accountId: account.id, petId: 4n, quantity: 2, shipDate: '2026-12-01T10:00:00-05:00' });
      assert.equal(order.status, 'pending');
      assert.equal(order.shipDate, '2026-12-01T15:00:00.000Z');
      assert.equal(order.complete, false);
      assert.equal(order.accountId, account.id);
    });

    test('when create input is out of range, then a validation error and nothing is stored', async (t) => {
      const { services, account } = await setup(t);
      const bad = [
        { quantity: 0 },
        { quantity: -1 },
        { quantity: 1.5 },
        { quantity: 2 ** 31 },
        { shipDate: '2026-12-01' },
        { shipDate: 'tomorrow' },
        { shipDate: '2026-02-30T00:00:00Z' },
        { id: 2n ** 63n },
        { petId: -(2n ** 63n) - 1n },
      ];
      for (const input of bad) {
        await assert.rejects(services.orderOperations.createOrder({ accountId: account.id, petId: 1n, quantity: 1, ...input }), rejectsWith('validation_failed'), JSON.stringify(input, (_k, v: unknown) => (typeof v === 'bigint' ? String(v) : v)));
      }
      assert.deepEqual(await services.orderOperations.listAllOrders(account.id), []);
    });

    test('when an id is taken or the account is unknown, then a clear error', async (t) => {
      const { services, account } = await setup(t);
      await services.orderOperations.createOrder({ accountId: account.id, id: 5n, petId: 1n, quantity: 1 });
      await assert.rejects(services.orderOperations.createOrder({ accountId: account.id, id: 5n, petId: 1n, quantity: 1 }), rejectsWith('order_id_taken'));
      await assert.rejects(services.orderOperations.createOrder({ accountId: 999, petId: 1n, quantity: 1 }), rejectsWith('account_not_found'));
    });

    test('when orders move through their states, then only pending orders ship or cancel', async (t) => {
      const { services, account } = await setup(t);
      const a = await services.orderOperations.createOrder({ accountId: account.id, petId: 1n, quantity: 1 });
      const b = await services.orderOperations.createOrder({ accountId: account.id, petId: 1n, quantity: 1 });

      await services.orderOperations.shipOrder(a.id);
      await assert.rejects(services.orderOperations.shipOrder(a.id), rejectsWith('order_not_pending'));
      await assert.rejects(services.orders.cancelOrder(account.id, a.id), rejectsWith('order_already_shipped'));

      await services.orders.cancelOrder(account.id, b.id);
      await assert.rejects(services.orders.cancelOrder(account.id, b.id), rejectsWith('order_not_found'));
      await assert.rejects(services.orderOperations.shipOrder(b.id), (e: unknown) => rejectsWith('order_not_pending')(e) && /cancelled/.test((e as Error).message));
      await assert.rejects(services.orderOperations.shipOrder(12345n), rejectsWith('order_not_found'));

      assert.deepEqual((await services.orderOperations.listAllOrders(account.id)).map((o) => o.status), ['shipped', 'cancelled']);
      assert.deepEqual((await services.orderOperations.listAllOrders(account.id)).filter((o) => o.status !== 'cancelled').map((o) => o.id), [a.id]);
    });

    test('when ship and cancel race on one pending order, then exactly one wins', async (t) => {
      const { services, account } = await setup(t);
      const orders = await Promise.all(Array.from({ length: 20 }, () => services.orderOperations.createOrder({ accountId: account.id, petId: 1n, quantity: 1 })));
      for (const order of orders) {
        const results = await Promise.allSettled([services.orders.cancelOrder(account.id, order.id), services.orderOperations.shipOrder(order.id)]);
        const [cancel, ship] = results;
        assert.ok(cancel && ship);
        assert.equal(results.filter((r) => r.status === 'fulfilled').length, 1);
        const final = (await services.orderOperations.listAllOrders(account.id)).find((o) => o.id === order.id);
        assert.equal(final?.status, cancel.status === 'fulfilled' ? 'cancelled' : 'shipped');
      }
    });
  });

  describe(`accounts and API keys services (${backend.name})`, () => {
    test('when a key is created, then only its hash and start are stored and it authenticates until revoked', async (t) => {
      const { storage } = await backend.freshDatabase(t);
      const services = testServices(storage, { clock: fixedClock });
      const account = await services.accounts.createAccount({ name: '  Trimmed  ' });
      assert.equal(account.name, 'Trimmed');
      const { apiKey, secret } = await services.apiKeys.createKey({ accountId: account.id, name: 'ci' });
      assert.match(secret, /^so_prod_[0-9A-Za-z]{36}$/);
      assert.equal(apiKey.start, secret.slice(0, 12));
      const listed = await services.apiKeys.listKeys(account.id);
      assert.ok(!JSON.stringify(listed).includes(secret.slice(12)));

      assert.deepEqual(await services.apiKeys.authenticate(secret), {
        ok: true,
        principal: { keyId: apiKey.id, accountId: account.id, scopes: [...API_KEY_SCOPES] },
      });
      assert.equal(await services.apiKeys.revokeKey(apiKey.id), 'revoked');
      assert.equal(await services.apiKeys.revokeKey(apiKey.id), 'already_revoked');
      assert.equal((await services.apiKeys.authenticate(secret)).ok, false);
      await assert.rejects(services.apiKeys.revokeKey(999), rejectsWith('api_key_not_found'));
      await assert.rejects(services.apiKeys.createKey({ accountId: 999 }), rejectsWith('account_not_found'));
      await assert.rejects(services.apiKeys.listKeys(999), rejectsWith('account_not_found'));
    });

    test('when names are empty, too long or hold control characters, then a validation error', async (t) => {
      const { storage } = await backend.freshDatabase(t);
      const services = testServices(storage, { clock: fixedClock });
      for (const name of ['', '   ', 'x'.repeat(201), 'a\nb', 'nul\u0000']) {
        await assert.rejects(services.accounts.createAccount({ name }), rejectsWith('validation_failed'));
      }
      assert.equal((await services.accounts.createAccount({ name: 'x'.repeat(200) })).name.length, 200);
      assert.equal((await services.accounts.createAccount({ name: 'Zoë 🐶 Ltd' })).name, 'Zoë 🐶 Ltd');
    });
  });
}
