import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { listOrdersV2Schema, getOrderV2Schema, cancelOrderV2Schema } from '../../../src/orders/v2/orders-v2-schemas.js';
import { createTestApp, errorBody } from '../../support/app.js';
import { walk, type Page } from '../../support/pages.js';
import { httpBackends } from '../../support/storage.js';
import { testConfig, testServices } from '../../support/container.js';

for (const backend of httpBackends()) {
  describe(`v2 orders listing over HTTP (${backend.name})`, () => {
    test('when listing without parameters, then every order in any status is returned by id with its status', async (t) => {
      const { app, services, tenant } = await createTestApp(t, backend);
      const { account, auth } = await tenant();
      const other = await tenant();
      await services.orderOperations.createOrder({ accountId: other.account.id, id: 1n, petId: 1n, quantity: 1 });
      await services.orderOperations.createOrder({ accountId: account.id, id: 30n, petId: 7n, quantity: 3, shipDate: '2026-12-01T12:00:00+02:00', complete: true });
      await services.orderOperations.createOrder({ accountId: account.id, id: 10n, quantity: 1 });
      await services.orderOperations.createOrder({ accountId: account.id, id: 20n, petId: 8n, quantity: 2 });
      await services.orderOperations.shipOrder(30n);
      await services.orders.cancelOrder(account.id, 20n);

      const response = await app.inject({ method: 'GET', url: '/v2/store/orders', headers: auth });

      assert.equal(response.statusCode, 200);
      assert.match(String(response.headers['content-type']), /^application\/json/);
      assert.equal(response.headers.link, undefined);
      assert.deepEqual(JSON.parse(response.body), {
        data: [
          { id: 10, quantity: 1, complete: false, status: 'pending' },
          { id: 20, petId: 8, quantity: 2, complete: false, status: 'cancelled' },
          { id: 30, petId: 7, quantity: 3, shipDate: '2026-12-01T10:00:00.000Z', complete: true, status: 'shipped' },
        ],
        nextCursor: null,
      });
    });

    test('when the account has no orders, then data is empty and nextCursor null', async (t) => {
      const { app, tenant } = await createTestApp(t, backend);
      const { auth } = await tenant();
      const response = await app.inject({ method: 'GET', url: '/v2/store/orders', headers: auth });
      assert.equal(response.statusCode, 200);
      assert.deepEqual(response.json(), { data: [], nextCursor: null });
    });

    test('when filtering by petId beyond 2^53, then the match is exact and digits survive', async (t) => {
      const { app, services, tenant } = await createTestApp(t, backend);
      const { account, auth } = await tenant();
      const big = 9007199254740993n; // 2^53 + 1: a JS number would read it as 2^53
      await services.orderOperations.createOrder({ accountId: account.id, id: 9223372036854775807n, petId: big, quantity: 1 });
      await services.orderOperations.createOrder({ accountId: account.id, id: 5n, petId: big - 1n, quantity: 1 });
      await services.orderOperations.createOrder({ accountId: account.id, id: 6n, petId: -9223372036854775808n, quantity: 1 });

      const exact = await app.inject({ method: 'GET', url: `/v2/store/orders?petId=${big}`, headers: auth });
      assert.equal(exact.statusCode, 200);
      assert.equal(
        exact.body,
        '{"data":[{"id":9223372036854775807,"status":"pending","complete":false,"petId":9007199254740993,"quantity":1}],"nextCursor":null}',
      );
      const neighbour = await app.inject({ method: 'GET', url: `/v2/store/orders?petId=${big - 1n}`, headers: auth });
      assert.match(neighbour.body, /"id":5,/);
      assert.doesNotMatch(neighbour.body, /9223372036854775807/);
      const min = await app.inject({ method: 'GET', url: '/v2/store/orders?petId=-9223372036854775808', headers: auth });
      assert.match(min.body, /^\{"data":\[\{"id":6,.*"petId":-9223372036854775808/);
    });

    test('when filters combine, then only orders matching all of them are listed; the ship-date range is half-open', async (t) => {
      const { app, services, tenant } = await createTestApp(t, backend);
      const { account, auth } = await tenant();
      const make = (id: bigint, shipDate: string | undefined, complete = false) =>
        services.orderOperations.createOrder({ accountId: account.id, id, petId: 1n, quantity: 1, shipDate, complete });
      await make(1n, '2026-12-01T00:00:00Z'); // at the lower bound: in
      await make(2n, '2026-12-01T23:59:59.999Z');
      await make(3n, '2026-12-02T00:00:00Z'); // at the upper bound: out
      await make(4n, undefined); // no ship date: out of any range
      await make(5n, '2026-11-30T23:59:59.999Z'); // just before: out
      await make(6n, '2026-12-01T12:00:00Z', true);
      await make(7n, '2026-12-01T12:00:00Z');
      await services.orderOperations.shipOrder(7n);
      await make(8n, '2026-12-01T12:00:00Z');
      await services.orders.cancelOrder(account.id, 8n);

      const ids = async (query: string) => {
        const response = await app.inject({ method: 'GET', url: `/v2/store/orders?${query}`, headers: auth });
        assert.equal(response.statusCode, 200, `${query}: ${response.body}`);
        return (response.json() as Page).data.map((o) => Number(o.id));
      };
      const day = 'shipDateFrom=2026-12-01T00:00:00Z&shipDateTo=2026-12-02T00:00:00Z';
      assert.deepEqual(await ids(day), [1, 2, 6, 7, 8]);
      // The same instants written with an offset mean the same range.
      assert.deepEqual(await ids('shipDateFrom=2026-12-01T01:00:00%2B01:00&shipDateTo=2026-12-01T19:00:00-05:00'), [1, 2, 6, 7, 8]);
      assert.deepEqual(await ids(`${day}&status=pending`), [1, 2, 6]);
      assert.deepEqual(await ids(`${day}&status=shipped&status=cancelled`), [7, 8]);
      assert.deepEqual(await ids(`${day}&complete=true`), [6]);
      assert.deepEqual(await ids(`${day}&complete=false&status=pending`), [1, 2]);
      assert.deepEqual(await ids('shipDateTo=2026-12-01T00:00:00Z'), [5]);
      assert.deepEqual(await ids('shipDateFrom=2026-12-02T00:00:00Z'), [3]);
      assert.deepEqual(await ids('shipDateFrom=2026-12-01T00:00:00Z&shipDateTo=2026-12-01T00:00:00Z'), []);
      assert.deepEqual(await ids('status=cancelled'), [8]);
      assert.deepEqual(await ids('petId=2'), []);
    });

    test('when there are more orders than the limit, then pages of `limit` follow nextCursor and Link rel="next" to the end', async (t) => {
      const { app, services, tenant } = await createTestApp(t, backend);
      const { account, auth } = await tenant();
      for (let i = 1; i <= 11; i++) await services.orderOperations.createOrder({ accountId: account.id, petId: BigInt(i % 2), quantity: i });

      const { pages, links } = await walk(app, auth, '/v2/store/orders?limit=4&petId=1');
      assert.deepEqual(pages.map((p) => p.data.map((o) => Number(o.id))), [[1, 3, 5, 7], [9, 11]]);
      assert.match(links[0] ?? '', /^<\/v2\/store\/orders\?petId=1&limit=4&cursor=[A-Za-z0-9_.-]+>; rel="next"$/);

      const all = await walk(app, auth, '/v2/store/orders?limit=5');
      assert.deepEqual(all.pages.map((p) => p.data.length), [5, 5, 1]);
      // An exact multiple: the last full page still says whether more follow.
      const exact = await walk(app, auth, '/v2/store/orders?limit=11');
      assert.equal(exact.pages.length, 1);
      assert.equal(exact.pages[0]?.nextCursor, null);
    });

    test('when no limit is given, then pages hold 50 orders; 500 is the largest limit', async (t) => {
      const { app, services, tenant } = await createTestApp(t, backend);
      const { account, auth } = await tenant();
      for (let i = 0; i < 51; i++) await services.orderOperations.createOrder({ accountId: account.id, petId: 1n, quantity: 1 });
      const { pages } = await walk(app, auth, '/v2/store/orders');
      assert.deepEqual(pages.map((p) => p.data.length), [50, 1]);
      const max = await app.inject({ method: 'GET', url: '/v2/store/orders?limit=500', headers: auth });
      assert.equal((max.json() as Page).data.length, 51);
    });

    test('when a parameter is unknown, repeated, empty or malformed, then 400 with an Error record naming it', async (t) => {
      const { app, tenant } = await createTestApp(t, backend);
      const { auth } = await tenant();
      const cases: [string, string][] = [
        ['sort=id', 'sort'],
        ['offset=10', 'offset'],
        ['STATUS=pending', 'STATUS'],
        ['status=bogus', 'status'],
        ['status=Pending', 'status'],
        ['status=', 'status'],
        ['status=pending&status=pending', 'status'],
        ['petId=', 'petId'],
        ['petId=1.5', 'petId'],
        ['petId=1e3', 'petId'],
        ['petId=007', 'petId'],
        ['petId=9223372036854775808', 'petId'],
        ['petId=-9223372036854775809', 'petId'],
        ['petId=1&petId=2', 'petId'],
        ['complete=1', 'complete'],
        ['complete=TRUE', 'complete'],
        ['complete=', 'complete'],
        ['shipDateFrom=2026-12-01', 'shipDateFrom'],
        ['shipDateFrom=2026-02-30T00:00:00Z', 'shipDateFrom'],
        ['shipDateTo=2026-12-01T10:00:00', 'shipDateTo'],
        ['shipDateTo=yesterday', 'shipDateTo'],
        ['shipDateFrom=2026-12-02T00:00:00Z&shipDateTo=2026-12-01T00:00:00Z', 'shipDateTo'],
        ['limit=0', 'limit'],
        ['limit=501', 'limit'],
        ['limit=9999', 'limit'],
        ['limit=99999999999999999999', 'limit'],
        ['limit=-1', 'limit'],
        ['limit=1.0', 'limit'],
        ['limit=1e2', 'limit'],
        ['limit=010', 'limit'],
        ['limit=', 'limit'],
        ['limit=5&limit=6', 'limit'],
        ['cursor=', 'cursor'],
        ['cursor=abc', 'cursor'],
        [`cursor=${'a'.repeat(600)}`, 'cursor'],
      ];
      for (const [query, name] of cases) {
        const response = await app.inject({ method: 'GET', url: `/v2/store/orders?${query}`, headers: auth });
        assert.equal(response.statusCode, 400, query);
        const error = errorBody(response);
        assert.ok(['validation_failed', 'invalid_cursor'].includes(error.code), `${query}: ${error.code}`);
        assert.match(error.message, new RegExp(`\\b${name}\\b`), `${query}: ${error.message}`);
      }
    });

    test('when an unknown parameter name looks like an API key, then the message does not repeat it', async (t) => {
      const { app, tenant } = await createTestApp(t, backend);
      const { auth, key } = await tenant();
      const response = await app.inject({ method: 'GET', url: `/v2/store/orders?${key}=1`, headers: auth });
      assert.equal(response.statusCode, 400);
      assert.ok(!response.body.includes(key.slice(12)));
    });
  });

  describe(`v2 cursors (${backend.name})`, () => {
    async function twoPages(t: Parameters<typeof createTestApp>[0]) {
      const testApp = await createTestApp(t, backend);
      const owner = await testApp.tenant();
      for (let i = 0; i < 5; i++) await testApp.services.orderOperations.createOrder({ accountId: owner.account.id, petId: 1n, quantity: 1 });
      const first = await testApp.app.inject({ method: 'GET', url: '/v2/store/orders?limit=2&status=pending', headers: owner.auth });
      const cursor = (first.json() as Page).nextCursor;
      assert.ok(cursor !== null);
      return { ...testApp, owner, cursor };
    }

    test('when any character of a cursor is changed, then 400 invalid_cursor and no orders', async (t) => {
      const { app, owner, cursor } = await twoPages(t);
      const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
      for (let i = 0; i < cursor.length; i++) {
        if (cursor[i] === '.') continue;
        const replacement = alphabet[(alphabet.indexOf(cursor[i] ?? 'A') + 1) % alphabet.length] ?? 'A';
        const forged = cursor.slice(0, i) + replacement + cursor.slice(i + 1);
        const response = await app.inject({ method: 'GET', url: `/v2/store/orders?limit=2&status=pending&cursor=${forged}`, headers: owner.auth });
        assert.equal(response.statusCode, 400, `position ${i}`);
        assert.equal(errorBody(response).code, 'invalid_cursor');
      }
    });

    test('when a cursor is re-signed with a forged payload (other account, other id), then 400 invalid_cursor', async (t) => {
      const { app, owner, cursor } = await twoPages(t);
      const [payload = '', mac = ''] = cursor.split('.');
      const decoded = JSON.parse(Buffer.from(payload, 'base64url').toString()) as Record<string, unknown>;
      for (const change of [{ a: Number(decoded.a) + 1 }, { k: '0' }]) {
        const forged = `${Buffer.from(JSON.stringify({ ...decoded, ...change })).toString('base64url')}.${mac}`;
        const response = await app.inject({ method: 'GET', url: `/v2/store/orders?limit=2&status=pending&cursor=${forged}`, headers: owner.auth });
        assert.equal(response.statusCode, 400);
        assert.equal(errorBody(response).code, 'invalid_cursor');
      }
    });

    test("when another account presents a cursor, then 400 invalid_cursor and never the owner's orders", async (t) => {
      const { app, tenant, services, cursor } = await twoPages(t);
      const intruder = await tenant();
      await services.orderOperations.createOrder({ accountId: intruder.account.id, petId: 1n, quantity: 1 });
      const response = await app.inject({ method: 'GET', url: `/v2/store/orders?limit=2&status=pending&cursor=${cursor}`, headers: intruder.auth });
      assert.equal(response.statusCode, 400);
      const error = errorBody(response);
      assert.equal(error.code, 'invalid_cursor');
      assert.doesNotMatch(error.message, /account/i);
    });

    test('when the filters change between pages, then 400 invalid_cursor; a different limit is allowed', async (t) => {
      const { app, owner, cursor } = await twoPages(t);
      for (const query of ['limit=2', 'limit=2&status=shipped', 'limit=2&status=pending&petId=1', 'limit=2&status=pending&complete=false']) {
        const response = await app.inject({ method: 'GET', url: `/v2/store/orders?${query}&cursor=${cursor}`, headers: owner.auth });
        assert.equal(response.statusCode, 400, query);
        assert.equal(errorBody(response).code, 'invalid_cursor');
        assert.match(errorBody(response).message, /filters/);
      }
      const bigger = await app.inject({ method: 'GET', url: `/v2/store/orders?limit=10&status=pending&cursor=${cursor}`, headers: owner.auth });
      assert.equal(bigger.statusCode, 200);
      assert.deepEqual((bigger.json() as Page).data.map((o) => o.id), [3, 4, 5]);
    });

    test('when walking while orders are inserted and cancelled, then every order that existed throughout appears exactly once', async (t) => {
      const { app, services, tenant } = await createTestApp(t, backend);
      const { account, auth } = await tenant();
      const original: bigint[] = [];
      for (let i = 0; i < 30; i++) {
        original.push((await services.orderOperations.createOrder({ accountId: account.id, id: BigInt(100 + i * 10), petId: 1n, quantity: 1 })).id);
      }
      const seen: bigint[] = [];
      let url: string | undefined = '/v2/store/orders?limit=4';
      let step = 0;
      while (url !== undefined) {
        const response: LightMyRequestResponse = await app.inject({ method: 'GET', url, headers: auth });
        assert.equal(response.statusCode, 200);
        const page = response.json() as Page;
        seen.push(...page.data.map((o) => BigInt(o.id)));
        url = page.nextCursor === null ? undefined : `/v2/store/orders?limit=4&cursor=${page.nextCursor}`;
        // Between pages: inserts behind, between and ahead of the position, and cancels.
        step++;
        await services.orderOperations.createOrder({ accountId: account.id, id: BigInt(100 + step * 10 + 5), petId: 1n, quantity: 1 });
        await services.orderOperations.createOrder({ accountId: account.id, petId: 1n, quantity: 1 });
        await services.orders.cancelOrder(account.id, original[(step * 7) % original.length] ?? 0n).catch(() => undefined);
      }
      assert.equal(new Set(seen).size, seen.length, 'no order twice');
      for (const id of original) assert.ok(seen.includes(id), `order ${id} missing`);
    });

    test('when two servers share a database and no CURSOR_SECRET is set, then each accepts the other\'s cursors', async (t) => {
      const { storage } = await backend.freshDatabase(t);
      const [a, b] = [testServices(storage), testServices(storage)];
      assert.ok(a && b);
      const account = await a.accounts.createAccount({ name: 'Shared' });
      for (let i = 0; i < 3; i++) await a.orderOperations.createOrder({ accountId: account.id, petId: 1n, quantity: 1 });
      const firstPage = await a.ordersV2.readPage(await a.ordersV2.openListing(account.id, { filter: {}, limit: 1 }));
      assert.ok(firstPage.nextCursor !== null);
      const second = await b.ordersV2.readPage(await b.ordersV2.openListing(account.id, { filter: {}, limit: 1, cursor: firstPage.nextCursor }));
      assert.deepEqual(second.orders.map((o) => o.id), [2n]);
    });

    test('when CURSOR_SECRET is rotated with the old one in CURSOR_SECRET_PREVIOUS, then old cursors still work; without it they are refused', async (t) => {
      const { storage } = await backend.freshDatabase(t);
      const oldSecret = 'o'.repeat(40);
      const newSecret = 'n'.repeat(40);
      const before = testServices(storage, { config: testConfig({ CURSOR_SECRET: oldSecret }) });
      const rotated = testServices(storage, { config: testConfig({ CURSOR_SECRET: newSecret, CURSOR_SECRET_PREVIOUS: oldSecret }) });
      const after = testServices(storage, { config: testConfig({ CURSOR_SECRET: newSecret }) });
      const account = await before.accounts.createAccount({ name: 'Rotating' });
      for (let i = 0; i < 3; i++) await before.orderOperations.createOrder({ accountId: account.id, petId: 1n, quantity: 1 });
      const { nextCursor } = await before.ordersV2.readPage(await before.ordersV2.openListing(account.id, { filter: {}, limit: 1 }));
      assert.ok(nextCursor !== null);

      const page = await rotated.ordersV2.readPage(await rotated.ordersV2.openListing(account.id, { filter: {}, limit: 1, cursor: nextCursor }));
      assert.deepEqual(page.orders.map((o) => o.id), [2n]);
      await assert.rejects(after.ordersV2.openListing(account.id, { filter: {}, limit: 1, cursor: nextCursor }), { code: 'invalid_cursor' });
    });
  });

  describe(`v2 get and cancel by id (${backend.name})`, () => {
    test('when an order exists in any status, then GET returns it with its status', async (t) => {
      const { app, services, tenant } = await createTestApp(t, backend);
      const { account, auth } = await tenant();
      await services.orderOperations.createOrder({ accountId: account.id, id: 1n, petId: 9007199254740993n, quantity: 2, shipDate: '2026-12-01T10:00:00Z' });
      await services.orderOperations.createOrder({ accountId: account.id, id: 2n, quantity: 1 });
      await services.orderOperations.createOrder({ accountId: account.id, id: 3n, quantity: 1, complete: true });
      await services.orders.cancelOrder(account.id, 2n);
      await services.orderOperations.shipOrder(3n);

      const get = (id: string) => app.inject({ method: 'GET', url: `/v2/store/orders/${id}`, headers: auth });
      const pending = await get('1');
      assert.equal(pending.statusCode, 200);
      assert.equal(pending.body, '{"id":1,"status":"pending","complete":false,"petId":9007199254740993,"quantity":2,"shipDate":"2026-12-01T10:00:00.000Z"}');
      assert.deepEqual((await get('2')).json(), { id: 2, quantity: 1, complete: false, status: 'cancelled' });
      assert.deepEqual((await get('3')).json(), { id: 3, quantity: 1, complete: true, status: 'shipped' });
    });

    test("when the order is missing or another account's, then 404 order_not_found alike; a malformed id is 400", async (t) => {
      const { app, services, tenant } = await createTestApp(t, backend);
      const owner = await tenant();
      const intruder = await tenant();
      await services.orderOperations.createOrder({ accountId: owner.account.id, id: 77n, quantity: 1 });
      const foreign = await app.inject({ method: 'GET', url: '/v2/store/orders/77', headers: intruder.auth });
      const missing = await app.inject({ method: 'GET', url: '/v2/store/orders/78', headers: intruder.auth });
      assert.equal(foreign.statusCode, 404);
      assert.equal(errorBody(foreign).code, 'order_not_found');
      assert.equal(foreign.body.replace(/\d+/g, 'N'), missing.body.replace(/\d+/g, 'N'));
      for (const id of ['abc', '1.5', '9223372036854775808', '007']) {
        const response = await app.inject({ method: 'GET', url: `/v2/store/orders/${id}`, headers: owner.auth });
        assert.equal(response.statusCode, 400, id);
        assert.match(errorBody(response).message, /orderId/);
      }
    });

    test('when a pending order is cancelled through v2, then 204; again 409 order_already_cancelled; v1 keeps answering 404', async (t) => {
      const { app, services, tenant } = await createTestApp(t, backend);
      const { account, auth } = await tenant();
      const order = await services.orderOperations.createOrder({ accountId: account.id, petId: 1n, quantity: 1 });

      const first = await app.inject({ method: 'DELETE', url: `/v2/store/orders/${order.id}`, headers: auth });
      assert.equal(first.statusCode, 204);
      assert.equal(first.body, '');
      const again = await app.inject({ method: 'DELETE', url: `/v2/store/orders/${order.id}`, headers: auth });
      assert.equal(again.statusCode, 409);
      assert.equal(errorBody(again).code, 'order_already_cancelled');
      const v1 = await app.inject({ method: 'DELETE', url: `/v1/store/orders/${order.id}`, headers: auth });
      assert.equal(v1.statusCode, 404);
      assert.equal(errorBody(v1).code, 'order_not_found');
      const shown = await app.inject({ method: 'GET', url: `/v2/store/orders/${order.id}`, headers: auth });
      assert.equal((shown.json() as { status: string }).status, 'cancelled');
    });

    test('when the order has shipped, is missing or is another account\'s, then v2 cancel answers as v1 does', async (t) => {
      const { app, services, tenant } = await createTestApp(t, backend);
      const owner = await tenant();
      const intruder = await tenant();
      const shipped = await services.orderOperations.createOrder({ accountId: owner.account.id, petId: 1n, quantity: 1 });
      await services.orderOperations.shipOrder(shipped.id);
      const pending = await services.orderOperations.createOrder({ accountId: owner.account.id, petId: 1n, quantity: 1 });
      const cancelled = await services.orderOperations.createOrder({ accountId: owner.account.id, petId: 1n, quantity: 1 });
      await services.orders.cancelOrder(owner.account.id, cancelled.id);

      const del = (id: bigint, auth: Record<string, string>) => app.inject({ method: 'DELETE', url: `/v2/store/orders/${id}`, headers: auth });
      const shippedAnswer = await del(shipped.id, owner.auth);
      assert.equal(shippedAnswer.statusCode, 409);
      assert.equal(errorBody(shippedAnswer).code, 'order_already_shipped');
      for (const id of [pending.id, shipped.id, cancelled.id, 999n]) {
        const response = await del(id, intruder.auth);
        assert.equal(response.statusCode, 404, `order ${id}`);
        assert.equal(errorBody(response).code, 'order_not_found');
      }
      assert.equal((await services.ordersV2.getOrder(owner.account.id, pending.id)).status, 'pending');
    });

    test('when many v2 cancels of one pending order race, then exactly one 204 and the rest 409 order_already_cancelled', async (t) => {
      const { app, services, tenant } = await createTestApp(t, backend);
      const { account, auth } = await tenant();
      const order = await services.orderOperations.createOrder({ accountId: account.id, petId: 1n, quantity: 1 });
      const responses = await Promise.all(
        Array.from({ length: 20 }, () => app.inject({ method: 'DELETE', url: `/v2/store/orders/${order.id}`, headers: auth })),
      );
      const statuses = responses.map((r) => r.statusCode);
      assert.equal(statuses.filter((s) => s === 204).length, 1);
      assert.equal(statuses.filter((s) => s === 409).length, 19);
    });

    test('when every /v2 route is called without a valid key, then 401', async (t) => {
      const { app } = await createTestApp(t, backend);
      for (const [method, url] of [['GET', '/v2/store/orders'], ['GET', '/v2/store/orders/1'], ['DELETE', '/v2/store/orders/1']] as const) {
        const missing = await app.inject({ method, url });
        assert.equal(missing.statusCode, 401, `${method} ${url}`);
        assert.equal(errorBody(missing).code, 'missing_api_key');
        const invalid = await app.inject({ method, url, headers: { authorization: 'Bearer so_prod_nope' } });
        assert.equal(invalid.statusCode, 401);
        assert.equal(errorBody(invalid).code, 'invalid_api_key');
      }
    });
  });
}

describe('v2 operations in the route schemas (for the OpenAPI document)', () => {
  test('when the v2 schemas are read, then each has its own operationId, x-stability beta and a full response set', () => {
    const schemas = [listOrdersV2Schema, getOrderV2Schema, cancelOrderV2Schema];
    assert.deepEqual(schemas.map((s) => s.operationId), ['listOrdersV2', 'getOrderV2', 'cancelOrderV2']);
    for (const schema of schemas) {
      assert.equal(schema['x-stability'], 'beta');
      assert.deepEqual(schema.tags, ['orders']);
      for (const status of [400, 401]) assert.ok(status in schema.response, `${schema.operationId} ${status}`);
    }
    assert.deepEqual(Object.keys(listOrdersV2Schema.response), ['200', '304', '400', '401', '403', '429', '500', '503']);
    assert.deepEqual(Object.keys(getOrderV2Schema.response), ['200', '400', '401', '403', '404', '429', '500', '503']);
    assert.deepEqual(Object.keys(cancelOrderV2Schema.response), ['204', '400', '401', '403', '404', '409', '429', '500', '503']);
  });
});
