import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { ROOT, startServer, runShellBlock } from '../support/process.js';

test('when the v2 walkthrough is run verbatim against a fresh server, then it answers what the section says', async (t) => {
  const doc = readFileSync(path.join(ROOT, 'docs', 'orders-v2.md'), 'utf8');
  const section = doc.slice(doc.indexOf('### Walkthrough'));
  const script = /```sh\n([\s\S]*?)```/.exec(section)?.[1];
  assert.ok(script, 'walkthrough block not found');
  const claims = [...section.slice(0, section.indexOf('\n### ', 5)).matchAll(/^`(\{.*\})`[;.]?$/gm)].map((m) => m[1] ?? '');
  assert.equal(claims.length, 4, 'expected the listing, second page, 409 and 400 bodies to be quoted');

  const dir = mkdtempSync(path.join(tmpdir(), 'store-orders-v2-readme-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const env = { DATABASE_URL: `sqlite:${path.join(dir, 'store.db')}` };
  const server = await startServer(t, env);
  const port = new URL(server.baseUrl).port;

  const output = await runShellBlock(script.replaceAll('127.0.0.1:3000', `127.0.0.1:${port}`), env);

  for (const claim of claims) assert.ok(output.includes(claim), `the section claims ${claim}; the run printed:\n${output}`);
  assert.match(output, /^204$/m);
  assert.match(output, /^link: <\/v2\/store\/orders\?petId=42&.*&limit=1&cursor=[A-Za-z0-9_.-]+>; rel="next"\r?$/im);
  assert.match(output, /HTTP\/1\.1 304 Not Modified/);
  server.child.kill('SIGTERM');
  assert.equal(await server.exited, 0);
});
