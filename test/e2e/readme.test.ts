import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { ROOT, startServer, runShellBlock } from '../support/process.js';

test('when the README walkthrough is run verbatim against a fresh server, then it answers what the README says', async (t) => {
  const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('## Five-minute walkthrough'));
  const script = /```sh\n([\s\S]*?)```/.exec(section)?.[1];
  assert.ok(script, 'walkthrough block not found');
  const claims = [...section.slice(0, section.indexOf('\n## ', 5)).matchAll(/^`(\[.*\]|\{.*\})`[;.]?$/gm)].map((m) => m[1] ?? '');
  assert.equal(claims.length, 3, 'expected the list, 404 and 409 bodies to be quoted');

  const dir = mkdtempSync(path.join(tmpdir(), 'store-orders-readme-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const env = { DATABASE_URL: `sqlite:${path.join(dir, 'store.db')}` };
  const server = await startServer(t, env);
  const port = new URL(server.baseUrl).port;

  const output = await runShellBlock(script.replaceAll('127.0.0.1:3000', `127.0.0.1:${port}`), env);

  for (const claim of claims) assert.ok(output.includes(claim), `README claims ${claim}; the run printed:\n${output}`);
  assert.match(output, /HTTP\/1\.1 204 No Content/);
  assert.match(output, /HTTP\/1\.1 401 Unauthorized[\s\S]*www-authenticate: Bearer realm="store-orders"/i);
  server.child.kill('SIGTERM');
  assert.equal(await server.exited, 0);
});
