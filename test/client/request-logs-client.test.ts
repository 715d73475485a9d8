import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
// The package's own export, as a user imports it (resolved through package.json "exports" to dist/).
import { createStoreOrdersClient, StoreOrdersApiError } from 'store-orders/client';
import { createTestApp } from '../support/app.js';
import { httpBackends } from '../support/storage.js';

for (const backend of httpBackends()) {
  describe(`store-orders/client listRequestLogs against a running server (${backend.name})`, () => {
    test('when the client lists its request logs with filters, then it gets the matching requests, newest first, with bigint ids, and a bad filter throws its Error record', async (t) => {
      const h = await createTestApp(t, backend);
      const address = await h.app.listen({ host: '127.0.0.1', port: 0 });
      const { account, key } = await h.tenant();
      const client = createStoreOrdersClient({ baseUrl: `${address}/v1`, apiKey: key });
      await assert.rejects(client.cancelOrder(77n), { code: 'order_not_found' });
      await client.listOrders();
      await h.services.requestLogRecorder.flush();

      const [apiKey] = await h.services.apiKeys.listKeys(account.id);
      const page = await client.listRequestLogs({ status: '4xx', keyId: BigInt(apiKey?.id ?? 0), since: new Date(Date.now() - 60_000), limit: 10 });
      assert.equal(page.nextCursor, null);
      assert.deepEqual(
        page.data.map((log) => [log.method, log.path, log.status, log.errorCode, log.response?.code]),
        [['DELETE', '/v1/store/orders/77', 404, 'order_not_found', 'order_not_found']],
      );
      assert.equal(typeof page.data[0]?.id, 'bigint');
      assert.equal((await client.listRequestLogs({ path: '/v1/store/orders', method: 'GET' })).data.length, 1);
      await assert.rejects(client.listRequestLogs({ status: 'oops' }), (error: unknown) => error instanceof StoreOrdersApiError && error.code === 'validation_failed' && error.status === 400);
    });
  });
}
