import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, test, type TestContext } from 'node:test';
import { runBin, startServer } from '../support/process.js';

function freshEnv(t: TestContext): Record<string, string> {
  const dir = mkdtempSync(path.join(tmpdir(), 'store-orders-e2e-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return { DATABASE_URL: `sqlite:${path.join(dir, 'store.db')}`, LOG_LEVEL: 'info' };
}

async function json(args: string[], env: Record<string, string>): Promise<Record<string, unknown>> {
  const result = await runBin([...args, '--json'], env);
  assert.equal(result.code, 0, `${args.join(' ')}: ${result.stderr}`);
  return JSON.parse(result.stdout) as Record<string, unknown>;
}

describe('the built CLI and server, end to end over real HTTP', () => {
  test('when an operator sets up a store with the CLI, then a client lists and cancels over HTTP, and SIGTERM exits 0', async (t) => {
    const env = freshEnv(t);
    assert.equal((await runBin(['migrate'], env)).code, 0);
    const account = await json(['accounts', 'create', '--name', 'E2E Pets'], env);
    const { key } = (await json(['keys', 'create', '--account', String(account.id)], env)) as { key: string };
    await json(['orders', 'create', '--account', String(account.id), '--pet-id', '42', '--quantity', '1', '--id', '9007199254740993'], env);
    await json(['orders', 'create', '--account', String(account.id), '--pet-id', '43', '--quantity', '2', '--id', '9007199254740994'], env);

    const server = await startServer(t, env);
    const auth = { authorization: `Bearer ${key}` };

    const list = await fetch(`${server.baseUrl}/v1/store/orders`, { headers: auth });
    assert.equal(list.status, 200);
    assert.ok(list.headers.get('x-request-id'));
    assert.equal(
      await list.text(),
      '[{"id":9007199254740993,"petId":42,"quantity":1,"complete":false},{"id":9007199254740994,"petId":43,"quantity":2,"complete":false}]',
    );

    const cancel = await fetch(`${server.baseUrl}/v1/store/orders/9007199254740993`, { method: 'DELETE', headers: auth });
    assert.equal(cancel.status, 204);
    assert.equal(await cancel.text(), '');
    assert.equal((await fetch(`${server.baseUrl}/v1/store/orders/9007199254740993`, { method: 'DELETE', headers: auth })).status, 404);

    // The operator ships the other order while the server runs: the server sees it at once.
    assert.equal((await runBin(['orders', 'ship', '9007199254740994'], env)).code, 0);
    const conflict = await fetch(`${server.baseUrl}/v1/store/orders/9007199254740994`, { method: 'DELETE', headers: auth });
    assert.equal(conflict.status, 409);
    assert.deepEqual(await conflict.json(), {
      code: 'order_already_shipped',
      message: 'Order 9007199254740994 has already shipped and cannot be cancelled.',
      status: 409,
    });

    const unauthorized = await fetch(`${server.baseUrl}/v1/store/orders`);
    assert.equal(unauthorized.status, 401);
    assert.equal(unauthorized.headers.get('www-authenticate'), 'Bearer realm="store-orders"');

    // Revocation from another process is refused by the running server within 1 s.
    assert.equal((await runBin(['keys', 'revoke', '1'], env)).code, 0);
    const revokedAt = Date.now();
    let status = 0;
    while (Date.now() - revokedAt < 1000) {
      status = (await fetch(`${server.baseUrl}/v1/store/orders`, { headers: auth })).status;
      if (status === 401) break;
    }
    assert.equal(status, 401);

    server.child.kill('SIGTERM');
    assert.equal(await server.exited, 0);
    assert.ok(!server.stdout().includes(key) && !server.stderr().includes(key), 'the key must not reach the output');
    const logLines = server.stdout().trim().split('\n').map((line) => JSON.parse(line) as { msg?: string; requestId?: string });
    assert.ok(logLines.some((line) => line.msg === 'request completed' && typeof line.requestId === 'string'));
    assert.ok(logLines.some((line) => line.msg === 'shutting down'));
  });

  test('when the database is fresh, then serve prints where it listens and commands that really create an account and a key', async (t) => {
    const env = freshEnv(t);
    const server = await startServer(t, env);
    // Each names the server's database (test/cli/cli-startup.test.ts pastes such lines into a shell).
    const prefix = `DATABASE_URL=${env.DATABASE_URL} ./bin/store-orders `;
    const commands = server.stderr().split('\n').filter((line) => line.includes('./bin/store-orders'));
    assert.equal(commands.length, 2, server.stderr());
    let key = '';
    for (const command of commands) {
      assert.ok(command.trim().startsWith(prefix), command);
      const args = [...command.trim().slice(prefix.length).matchAll(/"([^"]*)"|(\S+)/g)].map((m) => m[1] ?? m[2] ?? '');
      const result = await runBin(args, env);
      assert.equal(result.code, 0, `${command}: ${result.stderr}`);
      key = /so_prod_[0-9A-Za-z]{36}/.exec(result.stdout)?.[0] ?? key;
    }
    const list = await fetch(`${server.baseUrl}/v1/store/orders`, { headers: { authorization: `Bearer ${key}` } });
    assert.equal(list.status, 200);
    assert.deepEqual(await list.json(), []);
    server.child.kill('SIGINT');
    assert.equal(await server.exited, 0);
  });

  test('when the port is already taken, then serve exits 1 with one line on stderr', async (t) => {
    const env = freshEnv(t);
    const first = await startServer(t, env);
    const result = await runBin(['serve'], { ...env, PORT: new URL(first.baseUrl).port });
    assert.equal(result.code, 1);
    // The variable that chose the port is named (issue 19 #2).
    assert.match(result.stderr, /^store-orders: cannot serve: PORT=\d+: 127\.0\.0\.1:\d+ is already in use[^\n]*\n$/);
    first.child.kill('SIGTERM');
    assert.equal(await first.exited, 0);
  });

  test('when the configuration is invalid, then serve exits non-zero with a clear one-line message', async () => {
    const result = await runBin(['serve'], { PORT: 'http', DATABASE_URL: 'sqlite:/tmp/never-created/x.db' });
    assert.equal(result.code, 2);
    assert.match(result.stderr, /^store-orders: invalid configuration: PORT must be an integer from 0 to 65535/);
    assert.doesNotMatch(result.stderr, /\n\s+at /);
  });
});
