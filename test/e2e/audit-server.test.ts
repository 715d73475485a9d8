import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { runSql, readSql } from '../support/raw-sql.js';
import { runBin, startServer, waitFor } from '../support/process.js';
import type { DatabaseConfig } from '../../src/config/config.js';

test('when the server runs, then it prunes audit entries past AUDIT_RETENTION_DAYS in the background, serves the rest, and stops on SIGTERM', async (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'store-orders-audit-e2e-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const file = path.join(dir, 'store.db');
  const database: DatabaseConfig = { kind: 'sqlite', path: file };
  const env = { DATABASE_URL: `sqlite:${file}`, LOG_LEVEL: 'warn', AUDIT_RETENTION_DAYS: '30', AUDIT_PRUNE_INTERVAL_MS: '1000' };
  assert.equal((await runBin(['accounts', 'create', '--name', 'Retained Pets'], env)).code, 0);
  const created = await runBin(['keys', 'create', '--account', '1', '--json'], env);
  const { key, id } = JSON.parse(created.stdout) as { key: string; id: number };
  // An entry written 31 days ago, as an older server would have left it.
  const old = new Date(Date.now() - 31 * 86_400_000).toISOString();
  await runSql(database, `INSERT INTO audit_events (account_id, at, actor_kind, action, details) VALUES (1, '${old}', 'system', 'order_shipped', '{}')`);
  const count = async () => Number((await readSql(database, 'SELECT count(*) AS n FROM audit_events'))[0]?.n);
  assert.equal(await count(), 2);

  const server = await startServer(t, env);
  await waitFor(async () => (await count()) === 1, 'the server to prune the old entry');

  const response = await fetch(`${server.baseUrl}/v2/audit-events`, { headers: { authorization: `Bearer ${key}` } });
  assert.equal(response.status, 200);
  const page = (await response.json()) as { data: { action: string; actor: unknown; target?: unknown }[]; nextCursor: null };
  assert.deepEqual(page.data.map(({ action, actor, target }) => ({ action, actor, target })), [
    { action: 'authn_token_created', actor: { kind: 'operator' }, target: { kind: 'api_key', id: String(id) } },
  ]);

  server.child.kill('SIGTERM');
  assert.equal(await server.exited, 0);
});
