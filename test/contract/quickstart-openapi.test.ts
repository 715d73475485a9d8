import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { generateQuickstartOpenApiJson, OPENAPI_FILE, QUICKSTART_OPENAPI_FILE } from '../../scripts/contract-files.js';
import { createTestQuickstartApp } from '../support/quickstart.js';
import { sqliteBackend } from '../support/storage.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const committed = (file: string) => readFileSync(new URL(`../../${file}`, import.meta.url), 'utf8');

type Json = Record<string, unknown>;
const doc = JSON.parse(committed(QUICKSTART_OPENAPI_FILE)) as {
  servers: { url: string }[];
  paths: Record<string, Record<string, Json & { responses: Record<string, Json & { headers?: Json }> }>>;
  components: { schemas: Record<string, Json & { properties: Record<string, Json>; required?: string[] }> };
};

describe('the quickstart host\'s OpenAPI document', () => {
  test('when the code generates it, then it equals openapi/quickstart-openapi.json (run `npm run openapi` after changing a route)', async () => {
    assert.equal(await generateQuickstartOpenApiJson(), committed(QUICKSTART_OPENAPI_FILE));
  });

  test('when served at GET /openapi.json on the quickstart host without a key, then it is the committed document', async (t) => {
    const { app } = await createTestQuickstartApp(t, sqliteBackend);
    const response = await app.inject({ method: 'GET', url: '/openapi.json' });
    assert.equal(response.statusCode, 200);
    assert.match(String(response.headers['content-type']), /^application\/json/);
    assert.equal(response.body, committed(QUICKSTART_OPENAPI_FILE));
  });

  test('when QUICKSTART_PUBLIC_URL is configured, then the served server URL is it', async (t) => {
    const { app } = await createTestQuickstartApp(t, sqliteBackend, { config: { publicUrl: 'https://hello.shop.test' } });
    const served = (await app.inject({ method: 'GET', url: '/openapi.json' })).json<{ servers: { url: string }[] }>();
    assert.deepEqual(served.servers.map((s) => s.url), ['https://hello.shop.test']);
  });

  test('when read, then it documents exactly sendMessage and getMessage with their statuses, and the store document has neither', () => {
    assert.deepEqual(Object.keys(doc.paths).sort(), ['/messages', '/messages/{id}']);
    const send = doc.paths['/messages']?.post;
    const get = doc.paths['/messages/{id}']?.get;
    assert.equal(send?.operationId, 'sendMessage');
    assert.equal(get?.operationId, 'getMessage');
    assert.deepEqual(Object.keys(send?.responses ?? {}).sort(), ['202', '400', '401', '403', '408', '413', '422', '429', '431', '500', '503']);
    assert.deepEqual(Object.keys(get?.responses ?? {}).sort(), ['200', '401', '403', '404', '408', '429', '431', '500', '503']);
    assert.ok(send?.responses['202']?.headers?.Location);
    const message = doc.components.schemas.Message;
    assert.deepEqual(Object.keys(message?.properties ?? {}).sort(), ['createdAt', 'id', 'message', 'status']);
    assert.deepEqual(message?.properties.status?.enum, ['queued', 'sent', 'failed']);
    assert.deepEqual(doc.components.schemas.SendMessageRequest?.required, ['message']);
    const store = JSON.parse(committed(OPENAPI_FILE)) as { paths: Json };
    assert.ok(!Object.keys(store.paths).some((path) => path.includes('messages')));
  });

  test('when Spectral lints it with the store\'s ruleset (spectral:oas and OWASP), then there is no error or warning', async () => {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['node_modules/@stoplight/spectral-cli/dist/index.js', 'lint', QUICKSTART_OPENAPI_FILE, '--ruleset', '.spectral.mjs', '--format', 'json', '--quiet', '--fail-severity', 'error'],
      { cwd: root, maxBuffer: 16 * 1024 * 1024 },
    ).catch((error: { stdout?: string; stderr?: string }) => {
      if (typeof error.stdout === 'string' && error.stdout.trim().startsWith('[')) return { stdout: error.stdout };
      throw new Error(`spectral did not run: ${error.stderr ?? String(error)}`);
    });
    const findings = (JSON.parse(stdout) as { code: string; message: string; severity: number; path: string[] }[]).filter((f) => f.severity <= 1);
    assert.deepEqual(findings.map((f) => `${f.code} at ${f.path.join('.')}: ${f.message}`), []);
  });
});
