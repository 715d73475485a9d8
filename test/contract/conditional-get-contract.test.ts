import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { OPENAPI_FILE, OPENAPI_V2_FILE } from '../../scripts/contract-files.js';
import { createTestApp } from '../support/app.js';
import { httpBackends } from '../support/storage.js';

type Json = Record<string, unknown>;
interface Document {
  servers: { url: string }[];
  paths: Record<string, Record<string, { operationId: string; parameters?: Json[]; responses: Record<string, { headers?: Record<string, Json> }> }>>;
}

/**
 * What a document says about an operation's conditional GET: where it is
 * (server path + path), the request header to send and the response header
 * that carries the tag, both read from the document, not assumed.
 */
function documentedConditionalGet(file: string, operationId: string): { url: string; requestHeader: string; etagHeader: string } {
  const doc = JSON.parse(readFileSync(new URL(`../../${file}`, import.meta.url), 'utf8')) as Document;
  const base = new URL(doc.servers[0]?.url ?? '').pathname;
  for (const [path, item] of Object.entries(doc.paths)) {
    const op = item.get;
    if (op?.operationId !== operationId) continue;
    const requestHeader = op.parameters?.find((p) => p.in === 'header' && /^if-none-match$/i.test(String(p.name)))?.name;
    const etagHeader = Object.keys(op.responses['200']?.headers ?? {}).find((h) => /^etag$/i.test(h));
    assert.equal(typeof requestHeader, 'string', `${operationId} documents If-None-Match`);
    assert.equal(typeof etagHeader, 'string', `${operationId} documents ETag`);
    assert.ok(Object.keys(op.responses['304']?.headers ?? {}).includes(String(etagHeader)), `${operationId} 304 documents ETag`);
    return { url: `${base}${path}`, requestHeader: String(requestHeader), etagHeader: String(etagHeader) };
  }
  throw new Error(`${file} has no GET ${operationId}`);
}

const LISTINGS = [
  { file: OPENAPI_FILE, operationId: 'listOrders' },
  { file: OPENAPI_V2_FILE, operationId: 'listOrdersV2' },
] as const;

for (const backend of httpBackends()) {
  describe(`the documented conditional GET, exercised (${backend.name})`, () => {
    for (const { file, operationId } of LISTINGS) {
      test(`when ${operationId}'s documented ETag is sent back in its documented If-None-Match, then 304 with no body until an order changes`, async (t) => {
        const { url, requestHeader, etagHeader } = documentedConditionalGet(file, operationId);
        const { app, services, tenant } = await createTestApp(t, backend);
        const { account, auth } = await tenant();
        const order = await services.orderOperations.createOrder({ accountId: account.id, id: 9007199254740993n, petId: 1n, quantity: 1 });

        const first = await app.inject({ method: 'GET', url, headers: auth });
        assert.equal(first.statusCode, 200);
        const etag = first.headers[etagHeader.toLowerCase()];
        assert.equal(typeof etag, 'string');

        const again = await app.inject({ method: 'GET', url, headers: { ...auth, [requestHeader]: String(etag) } });
        assert.equal(again.statusCode, 304);
        assert.equal(again.body, '');
        assert.equal(again.headers[etagHeader.toLowerCase()], etag);

        await services.orderOperations.shipOrder(order.id);
        const changed = await app.inject({ method: 'GET', url, headers: { ...auth, [requestHeader]: String(etag) } });
        assert.equal(changed.statusCode, 200);
        assert.notEqual(changed.headers[etagHeader.toLowerCase()], etag);
      });
    }
  });
}
