import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { OPENAPI_FILE, OPENAPI_V2_FILE, QUICKSTART_OPENAPI_FILE } from '../../scripts/contract-files.js';
import { API_KEY_SCOPES } from '../../src/api-keys/api-key-scopes.js';
import { createTestApp } from '../support/app.js';
import { createTenant, createTestQuickstartApp } from '../support/quickstart.js';
import { sqliteBackend } from '../support/storage.js';

interface Operation {
  operationId: string;
  responses: Record<string, { content?: { 'application/json': { example: unknown } }; headers?: Record<string, { schema: { examples?: string[] } }> }>;
}
interface Document {
  servers: { url: string }[];
  paths: Record<string, Record<string, Operation>>;
}

function documented(file: string) {
  const doc = JSON.parse(readFileSync(new URL(`../../${file}`, import.meta.url), 'utf8')) as Document;
  const base = new URL(doc.servers[0]?.url ?? '').pathname.replace(/\/$/, '');
  return Object.entries(doc.paths).flatMap(([path, item]) =>
    Object.entries(item).map(([method, op]) => ({
      method: method.toUpperCase() as 'GET' | 'POST' | 'DELETE',
      // Any id will do: the scope is checked before the order, pet or message is looked up.
      url: base + path.replace(/\{[^}]+\}/g, '1'),
      op,
    })),
  );
}

describe('documented 403 examples', () => {
  test('when a key lacks the scope an operation needs, then its 403 body and challenge are exactly the documented example', async (t) => {
    const store = await createTestApp(t, sqliteBackend);
    const quickstart = await createTestQuickstartApp(t, sqliteBackend);
    const hosts = [
      { app: store.app, services: store.services, operations: [...documented(OPENAPI_FILE), ...documented(OPENAPI_V2_FILE)] },
      { app: quickstart.app, services: quickstart.services, operations: documented(QUICKSTART_OPENAPI_FILE) },
    ];
    let checked = 0;
    for (const { app, services, operations } of hosts) {
      for (const { method, url, op } of operations) {
        const forbidden = op.responses['403'];
        assert.ok(forbidden !== undefined, `${op.operationId} documents 403`);
        const example = forbidden.content?.['application/json'].example as { message: string };
        const scope = /scope ([a-z]+:[a-z]+)/.exec(example.message)?.[1];
        assert.ok(scope !== undefined, `${op.operationId}: the example names a scope`);
        // A key holding every scope but that one: it passes authentication and fails only on the scope.
        const { auth } = await createTenant(services, `no ${scope}`, API_KEY_SCOPES.filter((s) => s !== scope));
        const response = await app.inject({ method, url, headers: auth, ...(method === 'POST' ? { payload: { message: 'hi' } } : {}) });
        assert.equal(response.statusCode, 403, `${op.operationId}: ${response.body}`);
        assert.deepEqual(JSON.parse(response.body), example, op.operationId);
        assert.deepEqual([response.headers['www-authenticate']], forbidden.headers?.['WWW-Authenticate']?.schema.examples, op.operationId);
        checked++;
      }
    }
    // Every documented operation of every host (8 before the audit trail and the events feed).
    assert.equal(checked, hosts.reduce((n, host) => n + host.operations.length, 0));
    assert.ok(checked >= 10, `${checked} operations checked`);
  });
});
