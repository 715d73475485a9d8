import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { ROOT, runBin, runShellBlock } from '../support/process.js';

test('when the key commands of the hardening section (docs/operations.md) are run verbatim, then they succeed and do what it says', async (t) => {
  const operations = readFileSync(path.join(ROOT, 'docs', 'operations.md'), 'utf8');
  const doc = operations.slice(operations.indexOf('### Key lifetime, scopes and rotation'));
  const script = /```sh\n([\s\S]*?)```/.exec(doc)?.[1];
  assert.ok(script, 'the sh block is missing');
  const dir = mkdtempSync(path.join(tmpdir(), 'store-orders-hardening-doc-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const env = { DATABASE_URL: `sqlite:${path.join(dir, 'store.db')}` };
  assert.equal((await runBin(['accounts', 'create', '--name', 'Doc Pets'], env)).code, 0);

  const output = await runShellBlock(script, env);
  assert.match(output, /Created API key 3 to replace key 1/);
  const listed = JSON.parse((await runBin(['keys', 'list', '--account', '1', '--json'], env)).stdout) as {
    keys: { id: number; name: string | null; scopes: string[]; expiresAt: string | null }[];
  };
  assert.deepEqual(listed.keys.map((k) => k.id), [1, 2, 3]);
  assert.deepEqual(listed.keys[0]?.scopes, ['orders:read']);
  assert.equal(listed.keys[1]?.expiresAt, '2030-06-30T00:00:00.000Z');
  assert.equal(listed.keys[2]?.name, 'reporting');
  assert.ok(listed.keys[0]?.expiresAt !== null, 'the rolled key now expires at the end of its grace');
});
