import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test, type TestContext } from 'node:test';
import { BIN, ROOT, startServer, waitFor } from '../support/process.js';

const SCRIPT = '/usr/bin/script';
const skip = !existsSync(SCRIPT) && process.env.CI === undefined ? `${SCRIPT} (util-linux) is absent; this test runs whenever CI is set` : false;

function database(t: TestContext): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'store-orders-logs-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return `sqlite:${path.join(dir, 'store.db')}`;
}

/** An SGR escape sequence (a color); written with RegExp() so the escape character is not a literal control character. */
const ESC = String.fromCharCode(0x1b);
const ANSI = new RegExp(`${ESC}\\[[0-9;]*m`);

test('when stdout is a pipe, then every log line is JSON, and the greeting (stderr) points at /docs', async (t) => {
  const server = await startServer(t, { DATABASE_URL: database(t), QUICKSTART_PORT: 'off', LOG_LEVEL: 'info' });
  assert.match(server.stderr(), new RegExp(`API documentation: ${server.baseUrl}/docs`));
  assert.equal((await fetch(`${server.baseUrl}/healthz`)).status, 200);
  await waitFor(() => server.stdout().includes('request completed'), 'the request log lines');
  const lines = server.stdout().trim().split('\n');
  for (const line of lines) assert.doesNotThrow(() => JSON.parse(line), `a JSON line: ${line}`);
  assert.doesNotMatch(server.stdout(), ANSI);
  server.child.kill('SIGTERM');
  await server.exited;
});

test('when stdout is a terminal (a pseudo-terminal from script), then log lines are pretty and colored, not JSON, and the greeting points at /docs', { skip }, async (t) => {
  const env = { ...process.env, DATABASE_URL: database(t), PORT: '0', HOST: '127.0.0.1', QUICKSTART_PORT: 'off', PORTAL_PORT: 'off', LOG_LEVEL: 'info' };
  // script gives the command a pseudo-terminal on stdin, stdout and stderr, and copies what it writes to our pipe.
  const child = spawn(SCRIPT, ['-qfec', `${process.execPath} ${BIN} serve`, '/dev/null'], { cwd: ROOT, env, stdio: ['pipe', 'pipe', 'pipe'], detached: true });
  let out = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
  const exited = new Promise((resolve) => child.on('exit', resolve));
  t.after(async () => {
    if (child.exitCode === null && child.pid !== undefined) process.kill(-child.pid, 'SIGTERM');
    await exited;
  });
  await waitFor(() => /listening on (http:\/\/[^\s]+)/.test(out), 'the greeting', 15_000);
  const origin = new RegExp(`listening on (http://[^\\s${ESC}]+)`).exec(out)?.[1] ?? '';
  assert.match(out, new RegExp(`API documentation: ${origin}/docs`));
  assert.equal((await fetch(`${origin}/healthz`)).status, 200);
  await waitFor(() => out.includes('request completed'), 'the request log lines', 15_000);

  const logLines = out.split(/\r?\n/).filter((line) => line.includes('request completed'));
  assert.ok(logLines.length >= 1, out);
  for (const line of logLines) {
    assert.match(line, ANSI, `colored: ${JSON.stringify(line)}`);
    assert.match(line.replace(new RegExp(ANSI.source, 'g'), ''), /^\[\d{2}:\d{2}:\d{2}\.\d{3}\] INFO: request completed/, `pretty: ${JSON.stringify(line)}`);
    assert.doesNotMatch(line, /^\{/);
  }
});
