/** The "Place a test order" form of /orders over real requests, on every backend: placing, bad input, CSRF. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { accountOf, createTestPortal, orderIds, pageText, signUp } from '../../support/portal.js';
import { httpBackends } from '../../support/storage.js';



for (const backend of httpBackends()) {
  describe(`portal /orders, placing a test order: ${backend.name}`, () => {
    test('when a user places a test order, then it is pending, listed with a notice, and placed through the v2 service', async (t) => {
      const portal = await createTestPortal(t, backend);
      const { client, email } = await signUp(portal);
      const accountId = await accountOf(portal, email);

      const page = await client.get('/orders');
      for (const label of ['Place a test order', 'Quantity', 'Ship date (optional)', 'Place order']) assert.ok(pageText(page.body).includes(label), label);
      const placed = await client.post('/orders', { petId: '9223372036854775807', quantity: '3', shipDate: '2026-12-01' });
      assert.equal(placed.statusCode, 303);
      const id = /^\/orders\?placed=(\d+)$/.exec(String(placed.headers.location))?.[1];
      assert.ok(id !== undefined, String(placed.headers.location));

      const order = await portal.services.ordersV2.getOrder(accountId, BigInt(id));
      assert.equal(order.status, 'pending');
      assert.equal(order.petId, 9223372036854775807n);
      assert.equal(order.quantity, 3);
      assert.equal(order.shipDate, '2026-12-01T00:00:00.000Z');

      const listed = await client.get(`/orders?placed=${id}`);
      assert.equal(listed.statusCode, 200);
      assert.deepEqual(orderIds(listed.body), [id]);
      assert.match(pageText(listed.body), new RegExp(`Order ${id} was placed\\.`));

      const undated = await client.post('/orders', { petId: '7', quantity: '1', shipDate: '' });
      assert.equal(undated.statusCode, 303);
      const all = await portal.services.orderOperations.listAllOrders(accountId);
      assert.equal(all.length, 2);
      assert.equal(all.find((candidate) => candidate.petId === 7n)?.shipDate, undefined);
    });

    test('when the new order is not on the first page, then the page still shows it with the notice', async (t) => {
      const portal = await createTestPortal(t, backend);
      const { client, email } = await signUp(portal);
      const accountId = await accountOf(portal, email);
      for (let id = 1; id <= 25; id++) await portal.services.orderOperations.createOrder({ accountId, id: BigInt(id), petId: 5n });
      const placed = await client.post('/orders', { petId: '6', quantity: '2' }, {}, '/orders');
      assert.equal(placed.statusCode, 303);
      const location = String(placed.headers.location);
      const id = location.split('=')[1] ?? '';
      const listed = await client.get(location);
      assert.equal(orderIds(listed.body)[0], id);
      assert.equal(orderIds(listed.body).length, 21);
      assert.match(pageText(listed.body), new RegExp(`Order ${id} was placed\\.`));
    });

    test("when the placed link names another account's order or none, then no notice and nothing extra is listed", async (t) => {
      const portal = await createTestPortal(t, backend);
      const { email } = await signUp(portal);
      await portal.services.orderOperations.createOrder({ accountId: await accountOf(portal, email), id: 1001n });
      const { client: other } = await signUp(portal);
      for (const url of ['/orders?placed=1001', '/orders?placed=999', '/orders?placed=9999999999999999999', '/orders?placed=abc']) {
        const page = await other.get(url);
        assert.equal(page.statusCode, 200, url);
        assert.deepEqual(orderIds(page.body), [], url);
        assert.doesNotMatch(pageText(page.body), /was placed/, url);
      }
    });

    test('when the test order input is bad, then a 400 page says why, keeps the input and places nothing', async (t) => {
      const portal = await createTestPortal(t, backend);
      const { client, email } = await signUp(portal);
      const accountId = await accountOf(portal, email);
      await client.get('/orders');
      const cases: [Record<string, string>, RegExp][] = [
        [{ petId: 'abc', quantity: '1' }, /Pet ID must be a whole number/],
        [{ petId: '', quantity: '1' }, /Pet ID must be a whole number/],
        [{ petId: '99999999999999999999', quantity: '1' }, /Pet ID must be a whole number/],
        [{ petId: '7', quantity: '0' }, /Quantity must be an integer from 1 to 2147483647/],
        [{ petId: '7', quantity: 'lots' }, /Quantity must be an integer from 1 to 2147483647/],
        [{ petId: '7', quantity: '2147483648' }, /Quantity must be an integer from 1 to 2147483647/],
        [{ petId: '7', quantity: '1', shipDate: '2026-02-30' }, /Ship date must be a date such as 2026-12-01/],
      ];
      for (const [fields, message] of cases) {
        const response = await client.post('/orders', fields);
        assert.equal(response.statusCode, 400, JSON.stringify(fields));
        assert.match(pageText(response.body), message, JSON.stringify(fields));
        assert.ok(response.body.includes(`name="quantity" type="text" inputmode="numeric" required maxlength="20" value="${fields.quantity ?? ''}"`), 'input kept');
        assert.ok(response.body.includes(`id="place-pet-id" name="petId" type="text" inputmode="numeric" required maxlength="40" value="${fields.petId ?? ''}"`), 'input kept');
      }
      assert.deepEqual(await portal.services.orderOperations.listAllOrders(accountId), []);
    });

    test('when the test order form is forged, then 403 and no order is placed', async (t) => {
      const portal = await createTestPortal(t, backend);
      const { client, email } = await signUp(portal);
      const accountId = await accountOf(portal, email);
      await client.get('/orders');
      assert.equal((await client.post('/orders', { petId: '7', quantity: '1' }, { csrf: null })).statusCode, 403);
      assert.equal((await client.post('/orders', { petId: '7', quantity: '1' }, { origin: 'https://evil.example' })).statusCode, 403);
      assert.deepEqual(await portal.services.orderOperations.listAllOrders(accountId), []);
    });
  });
}
