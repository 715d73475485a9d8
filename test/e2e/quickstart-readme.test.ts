import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { ROOT, startServer, runShellBlock } from '../support/process.js';

test('when the quickstart curl block (docs/quickstart-host.md) is run verbatim against a running server, then it answers what the section says', async (t) => {
  const doc = readFileSync(path.join(ROOT, 'docs', 'quickstart-host.md'), 'utf8');
  const section = doc.slice(doc.indexOf('# Quickstart host'));
  const script = /```sh\n([\s\S]*?)```/.exec(section)?.[1];
  assert.ok(script, 'curl block not found');

  const dir = mkdtempSync(path.join(tmpdir(), 'store-orders-quickstart-readme-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const env = { DATABASE_URL: `sqlite:${path.join(dir, 'store.db')}` };
  const server = await startServer(t, env);
  assert.ok(server.quickstartUrl);
  const port = new URL(server.quickstartUrl).port;

  const output = await runShellBlock(script.replaceAll('127.0.0.1:3001', `127.0.0.1:${port}`), env);

  assert.match(output, /^HTTP\/1\.1 202 Accepted\r?$/m);
  assert.match(output, /^location: \/messages\/[0-9a-f-]{36}\r?$/im);
  assert.match(output, /\{"id":"[0-9a-f-]{36}","message":"Hello from the quickstart 👋","status":"queued","createdAt":"[^"]+Z"\}/);
  assert.match(output, /\{"id":"[0-9a-f-]{36}","message":"Your order has shipped","status":"(sent|queued)","createdAt":"[^"]+Z"\}/);
  const replays = [...output.matchAll(/\{"id":"[^"]+","message":"Welcome!"[^}]*\}/g)].map((m) => m[0]);
  assert.equal(replays.length, 2);
  assert.equal(replays[0], replays[1]);
  assert.match(output, /^idempotent-replayed: true\r?$/im);
  for (const code of ['idempotency_key_reused', 'content_type_not_json', 'missing_api_key']) {
    assert.match(output, new RegExp(`"code":"${code}"`));
    assert.ok(section.includes(`"code":"${code}"`), `the section names ${code}`);
  }
  server.child.kill('SIGTERM');
  assert.equal(await server.exited, 0);
});
