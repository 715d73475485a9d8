import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createTestApp } from '../support/app.js';
import { httpBackends } from '../support/storage.js';

for (const backend of httpBackends()) {
  describe(`logging (${backend.name})`, () => {
    test('when a key travels in the header, query, path or body, then no log line contains it, yet requests are logged', async (t) => {
      const { app, services, tenant, logs } = await createTestApp(t, backend);
      const { key, auth, account } = await tenant();
      const order = await services.orderOperations.createOrder({ accountId: account.id, petId: 1n, quantity: 1 });
      const revoked = await tenant();
      const [revokedKey] = await services.apiKeys.listKeys(revoked.account.id);
      assert.ok(revokedKey);
      await services.apiKeys.revokeKey(revokedKey.id);

      const requests = [
        { method: 'GET', url: '/v1/store/orders', headers: auth },
        { method: 'GET', url: `/v1/store/orders?api_key=${key}&x=${encodeURIComponent(key)}` },
        { method: 'DELETE', url: `/v1/store/orders/${key}`, headers: auth },
        { method: 'DELETE', url: `/nope/${key}` },
        { method: 'GET', url: '/v1/store/orders', headers: { authorization: `Basic ${key}` } },
        { method: 'GET', url: '/v1/store/orders', headers: { authorization: `Bearer ${key}x` } },
        { method: 'GET', url: '/v1/store/orders', headers: revoked.auth },
        { method: 'DELETE', url: `/v1/store/orders/${order.id}`, headers: { ...auth, 'content-type': 'application/json' }, payload: JSON.stringify({ key }) },
        { method: 'DELETE', url: `/v1/store/orders/${order.id}`, headers: { ...auth, 'content-type': 'text/x-key' }, payload: key },
        { method: 'GET', url: '/healthz', headers: { 'x-request-id': key } },
        { method: 'DELETE', url: `/v1/store/orders/${key.replaceAll('_', '%5F')}`, headers: auth },
        { method: 'GET', url: `/nope/%73${key.slice(1)}` },
      ] as const;
      const ids: string[] = [];
      for (const request of requests) {
        const response = await app.inject(request);
        ids.push(String(response.headers['x-request-id']));
        assert.ok(!JSON.stringify(response.headers).includes(key.slice(8)), 'a key was echoed in a response header');
      }

      const all = logs.join('');
      for (const secret of [key, revoked.key, key.slice(8)]) {
        assert.ok(!all.includes(secret), 'a key reached the logs');
      }
      const lines = logs.flatMap((chunk) => chunk.split('\n')).filter(Boolean).map((line) => JSON.parse(line) as Record<string, unknown>);
      for (const id of ids) {
        assert.ok(lines.some((line) => line.requestId === id && line.msg === 'request completed'), `request ${id} was not logged`);
      }
      assert.ok(lines.some((line) => JSON.stringify(line).includes('[redacted')), 'expected visible redaction markers');
    });
  });
}
