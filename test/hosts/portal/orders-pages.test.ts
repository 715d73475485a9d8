/** The /orders pages over real requests, on every backend: filters, paging, cancel and ship, conflicts, bad input, CSRF. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { accountOf, createTestPortal, orderIds, pageText, signUp } from '../../support/portal.js';
import { httpBackends } from '../../support/storage.js';



for (const backend of httpBackends()) {
  describe(`portal /orders: ${backend.name}`, () => {
    test('when a user filters by status, pet and ship dates, then only matching orders of their account are listed, with the filter form kept', async (t) => {
      const portal = await createTestPortal(t, backend);
      const { client, email } = await signUp(portal);
      const accountId = await accountOf(portal, email);
      await portal.services.orderOperations.createOrder({ accountId, id: 1001n, petId: 7n, quantity: 1, shipDate: '2026-12-01T10:00:00Z' });
      await portal.services.orderOperations.createOrder({ accountId, id: 1002n, petId: 8n, quantity: 2, shipDate: '2026-12-05T10:00:00Z' });
      await portal.services.orderOperations.createOrder({ accountId, id: 1003n, petId: 7n, quantity: 3, shipDate: '2026-12-09T10:00:00Z' });
      await portal.services.orderOperations.shipOrder(1003n);
      const { email: otherEmail } = await signUp(portal);
      await portal.services.orderOperations.createOrder({ accountId: await accountOf(portal, otherEmail), id: 2001n, petId: 7n });

      const all = await client.get('/orders');
      assert.equal(all.statusCode, 200);
      for (const label of ['Status', 'Pet ID', 'Ship date from', 'Ship date to', 'Apply']) assert.ok(pageText(all.body).includes(label), label);
      assert.deepEqual(orderIds(all.body), ['1001', '1002', '1003']);
      assert.equal((all.body.match(/>Cancel order</g) ?? []).length, 2, 'pending orders only');
      assert.equal((all.body.match(/>Mark shipped</g) ?? []).length, 2);

      assert.deepEqual(orderIds((await client.get('/orders?status=pending&petId=7')).body), ['1001']);
      assert.deepEqual(orderIds((await client.get('/orders?status=shipped')).body), ['1003']);
      const dated = await client.get('/orders?shipDateFrom=2026-12-02&shipDateTo=2026-12-05');
      assert.deepEqual(orderIds(dated.body), ['1002'], '"to" includes its whole day');
      assert.match(dated.body, /name="shipDateTo" type="date" value="2026-12-05"/);
    });

    test('when there are more orders than a page, then Next page follows the signed cursor with the same filters until the last page', async (t) => {
      const portal = await createTestPortal(t, backend);
      const { client, email } = await signUp(portal);
      const accountId = await accountOf(portal, email);
      for (let id = 1; id <= 45; id++) await portal.services.orderOperations.createOrder({ accountId, id: BigInt(id), petId: 5n });
      const seen: string[] = [];
      let url: string | undefined = '/orders?petId=5';
      while (url !== undefined) {
        const page = await client.get(url);
        assert.equal(page.statusCode, 200);
        seen.push(...orderIds(page.body));
        const next = /<a href="([^"]+)" rel="next">Next page<\/a>/.exec(page.body)?.[1];
        url = next?.replace(/&amp;/g, '&');
        if (url !== undefined) assert.match(url, /petId=5/);
      }
      assert.equal(seen.length, 45);
      assert.deepEqual(seen, Array.from({ length: 45 }, (_, index) => String(index + 1)));
    });

    test('when the filters or the cursor are bad, then the page says what is wrong with 400, never a 500', async (t) => {
      const portal = await createTestPortal(t, backend);
      const { client } = await signUp(portal);
      const cases: [string, RegExp][] = [
        ['/orders?petId=abc', /Pet ID must be a whole number/],
        ['/orders?petId=99999999999999999999', /Pet ID must be a whole number/],
        ['/orders?status=lost', /Status must be one of pending, shipped, cancelled/],
        ['/orders?shipDateFrom=2026-02-30', /Ship date from must be a date/],
        ['/orders?shipDateTo=yesterday', /Ship date to must be a date/],
        ['/orders?shipDateFrom=2026-12-05&shipDateTo=2026-12-01', /Ship date to must not be earlier than Ship date from/],
        ['/orders?cursor=forged', /That page link is not valid any more/],
      ];
      for (const [url, message] of cases) {
        const response = await client.get(url);
        assert.equal(response.statusCode, 400, url);
        assert.match(pageText(response.body), message, url);
      }
      assert.equal((await client.get(`/orders?petId=${'9'.repeat(100)}`)).statusCode, 400);
    });

    test('when a user cancels a pending order through the confirmation step, then it is cancelled (v1 no longer lists it) and recorded as the user', async (t) => {
      const portal = await createTestPortal(t, backend);
      const { client, email } = await signUp(portal);
      const accountId = await accountOf(portal, email);
      await portal.services.orderOperations.createOrder({ accountId, id: 1001n, petId: 7n });
      const confirm = await client.get('/orders/1001/cancel');
      assert.equal(confirm.statusCode, 200);
      assert.match(confirm.body, />Cancel this order<\/button>/);
      const done = await client.post('/orders/1001/cancel', {});
      assert.equal(done.statusCode, 303);
      assert.equal(done.headers.location, '/orders?cancelled=1001');
      assert.equal((await portal.services.ordersV2.getOrder(accountId, 1001n)).status, 'cancelled');
      assert.deepEqual(await portal.services.orderOperations.listAllOrders(accountId).then((orders) => orders.filter((order) => order.status === 'pending')), []);
      assert.match(pageText((await client.get('/orders?cancelled=1001')).body), /Order 1001 was cancelled\./);
      const user = await portal.storage.users.findByEmail(email);
      const { entries } = await portal.services.audit.list(accountId);
      const entry = entries.find((candidate) => candidate.action === 'order_cancelled');
      assert.deepEqual(entry?.actor, { kind: 'user', id: user?.id });
    });

    test('when a user marks an order shipped and then tries to cancel it, then the 409 page says it has already shipped', async (t) => {
      const portal = await createTestPortal(t, backend);
      const { client, email } = await signUp(portal);
      const accountId = await accountOf(portal, email);
      await portal.services.orderOperations.createOrder({ accountId, id: 1001n });
      const shipped = await client.post('/orders/1001/ship', {}, {}, '/orders');
      assert.equal(shipped.statusCode, 303);
      assert.equal((await portal.services.ordersV2.getOrder(accountId, 1001n)).status, 'shipped');
      const cancel = await client.post('/orders/1001/cancel', {}, {}, '/orders');
      assert.equal(cancel.statusCode, 409);
      assert.match(pageText(cancel.body), /has already shipped and cannot be cancelled/);
      const again = await client.post('/orders/1001/ship', {}, {}, '/orders');
      assert.equal(again.statusCode, 409);
      assert.match(pageText(again.body), /has already shipped/);
      assert.equal((await client.get('/orders/1001/cancel')).statusCode, 409);
    });

    test("when a user acts on another account's order or a missing one, then it is not found and unchanged", async (t) => {
      const portal = await createTestPortal(t, backend);
      const { email } = await signUp(portal);
      const accountId = await accountOf(portal, email);
      await portal.services.orderOperations.createOrder({ accountId, id: 1001n });
      const { client: other } = await signUp(portal);
      assert.equal((await other.get('/orders/1001/cancel')).statusCode, 404);
      assert.equal((await other.post('/orders/1001/cancel', {}, {}, '/orders')).statusCode, 404);
      assert.equal((await other.post('/orders/1001/ship', {}, {}, '/orders')).statusCode, 404);
      assert.equal((await portal.services.ordersV2.getOrder(accountId, 1001n)).status, 'pending');
    });

    test('when a cancel or ship form is forged, then 403 and the order stays pending', async (t) => {
      const portal = await createTestPortal(t, backend);
      const { client, email } = await signUp(portal);
      const accountId = await accountOf(portal, email);
      await portal.services.orderOperations.createOrder({ accountId, id: 1001n });
      await client.get('/orders');
      assert.equal((await client.post('/orders/1001/cancel', {}, { csrf: null })).statusCode, 403);
      assert.equal((await client.post('/orders/1001/ship', {}, { origin: 'https://evil.example' })).statusCode, 403);
      assert.equal((await client.post('/orders/1001/ship', {}, { origin: 'null' })).statusCode, 403);
      assert.equal((await portal.services.ordersV2.getOrder(accountId, 1001n)).status, 'pending');
    });
  });
}
