import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, test, type TestContext } from 'node:test';
import { runBin, startServer } from '../support/process.js';

function freshEnv(t: TestContext): Record<string, string> {
  const dir = mkdtempSync(path.join(tmpdir(), 'store-orders-workers-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return { DATABASE_URL: `sqlite:${path.join(dir, 'store.db')}`, LOG_LEVEL: 'warn' };
}

async function json(args: string[], env: Record<string, string>): Promise<Record<string, unknown>> {
  const result = await runBin([...args, '--json'], env);
  assert.equal(result.code, 0, `${args.join(' ')}: ${result.stderr}`);
  return JSON.parse(result.stdout) as Record<string, unknown>;
}

async function setUpStore(env: Record<string, string>) {
  const account = await json(['accounts', 'create', '--name', 'Workers'], env);
  const { key } = (await json(['keys', 'create', '--account', String(account.id)], env)) as { key: string };
  for (const id of ['1', '2', '3']) await json(['orders', 'create', '--account', String(account.id), '--pet-id', '9', '--quantity', '1', '--id', id], env);
  return { accountId: String(account.id), key, auth: { authorization: `Bearer ${key}` } };
}

const ids = async (response: Response) => ((await response.json()) as { id: number }[]).map((o) => o.id);

describe('caches across processes, over real HTTP', () => {
  test('when another process (the CLI) ships, creates or revokes, then the running server reflects it in the next request', async (t) => {
    const env = freshEnv(t);
    const { accountId, auth } = await setUpStore(env);
    const server = await startServer(t, env);
    const list = () => fetch(`${server.baseUrl}/v1/store/orders`, { headers: auth });
    assert.deepEqual(await ids(await list()), [1, 2, 3]);

    await json(['orders', 'create', '--account', accountId, '--pet-id', '9', '--quantity', '1', '--id', '4'], env);
    assert.deepEqual(await ids(await list()), [1, 2, 3, 4]);

    await json(['orders', 'ship', '2'], env);
    const shipped = await fetch(`${server.baseUrl}/v1/store/orders/2`, { method: 'DELETE', headers: auth });
    assert.equal(shipped.status, 409);

    await json(['keys', 'revoke', '1'], env);
    // Revocation by another process is honoured within 1 s.
    await new Promise((resolve) => setTimeout(resolve, 1100));
    assert.equal((await list()).status, 401);
  });

  test('when served by 2 workers, then a cancel through any worker is visible in the very next list, and SIGTERM drains both and exits 0', async (t) => {
    const env = freshEnv(t);
    const { auth } = await setUpStore(env);
    const server = await startServer(t, env, ['--workers', '2']);
    assert.match(server.stderr(), /with 2 workers/);
    const list = () => fetch(`${server.baseUrl}/v1/store/orders`, { headers: { ...auth, connection: 'close' } });
    // Several fresh connections, so that both workers have built their cached listing.
    for (let i = 0; i < 6; i++) assert.deepEqual(await ids(await list()), [1, 2, 3]);

    for (const id of [1, 3]) {
      const cancel = await fetch(`${server.baseUrl}/v1/store/orders/${id}`, { method: 'DELETE', headers: { ...auth, connection: 'close' } });
      assert.equal(cancel.status, 204);
      for (let i = 0; i < 4; i++) assert.deepEqual(await ids(await list()), id === 1 ? [2, 3] : [2]);
    }

    server.child.kill('SIGTERM');
    assert.equal(await server.exited, 0);
  });

  test('when the workers cannot listen (port taken), then serve --workers 2 stops and exits 1 instead of re-forking forever', async (t) => {
    const env = freshEnv(t);
    const first = await startServer(t, env);
    const result = await runBin(['serve', '--workers', '2'], { ...env, PORT: new URL(first.baseUrl).port });
    assert.equal(result.code, 1);
    assert.match(result.stderr, /worker could not start: PORT=\d+: 127\.0\.0\.1:\d+ is already in use/);
    assert.match(result.stderr, /before the server was up; stopping/);
    first.child.kill('SIGTERM');
    assert.equal(await first.exited, 0);
  });

  test('when --workers is not a positive integer, then serve refuses with exit 2', async (t) => {
    const env = freshEnv(t);
    const result = await runBin(['serve', '--workers', 'many'], env);
    assert.equal(result.code, 2);
    assert.match(result.stderr, /--workers must be a positive integer/);
  });
});
