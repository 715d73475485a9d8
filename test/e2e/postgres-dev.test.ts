import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, test, type TestContext } from 'node:test';
import pg from 'pg';
import { restartablePort } from '../support/embedded-postgres.js';
import { testServerUrl } from '../support/postgres.js';
import { ROOT, runBin, startServer, waitFor } from '../support/process.js';

async function asAdmin<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: await testServerUrl() });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** The test server's URL for `user:password` and `database`. */
async function urlFor(database: string, credentials?: { user: string; password: string }): Promise<string> {
  const url = new URL(await testServerUrl());
  url.pathname = `/${encodeURIComponent(database)}`;
  if (credentials !== undefined) {
    url.username = credentials.user;
    url.password = credentials.password;
  }
  return url.toString();
}

/** Starts `npm run db:postgres` (its command from package.json) on a free port and a temporary data directory. */
function startDevPostgres(t: TestContext, port: number, dataDir: string) {
  const scripts = (JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
  const [node, ...args] = (scripts['db:postgres'] ?? '').split(' ');
  assert.equal(node, 'node');
  const child = spawn(process.execPath, args, {
    cwd: ROOT,
    env: { ...process.env, PG_PORT: String(port), PG_DATA_DIR: dataDir },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (err += chunk));
  const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
  t.after(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGINT');
  });
  return { child, exited, stdout: () => out, stderr: () => err };
}

describe('PostgreSQL from zero', () => {
  test('when npm run db:postgres runs, then its printed migrate and serve lines work, Ctrl-C stops it and the data stays', { timeout: 120_000 }, async (t) => {
    const dir = mkdtempSync(path.join(tmpdir(), 'store-orders-devpg-'));
    // As root, PostgreSQL runs as the `postgres` user, which must reach the data directory inside.
    chmodSync(dir, 0o711);
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    // Stopped and started again: below the ephemeral range (see restartablePort).
    const port = await restartablePort();
    const dataDir = path.join(dir, 'postgres');

    const first = startDevPostgres(t, port, dataDir);
    await waitFor(() => first.stdout().includes('Ctrl-C stops PostgreSQL'), `db:postgres to start; stderr: ${first.stderr()}`, 60_000);
    const url = `postgres://store:store@127.0.0.1:${port}/store`;
    assert.ok(first.stdout().includes(`  export DATABASE_URL=${url}\n  ./bin/store-orders migrate\n  ./bin/store-orders serve\n`), first.stdout());

    const migrate = await runBin(['migrate'], { DATABASE_URL: url });
    assert.equal(migrate.code, 0, migrate.stderr);
    assert.match(migrate.stdout, /^Applied 0001-initial/);
    assert.equal((await runBin(['accounts', 'create', '--name', 'Kept'], { DATABASE_URL: url })).code, 0);
    const server = await startServer(t, { DATABASE_URL: url, QUICKSTART_PORT: 'off' });
    assert.equal((await fetch(`${server.baseUrl}/readyz`)).status, 200);
    server.child.kill('SIGTERM');
    await server.exited;

    first.child.kill('SIGINT');
    assert.equal(await first.exited, 0, first.stderr());
    assert.match(first.stdout(), /PostgreSQL stopped\.\n$/);

    const second = startDevPostgres(t, port, dataDir);
    await waitFor(() => second.stdout().includes('Ctrl-C stops PostgreSQL'), `db:postgres to start again; stderr: ${second.stderr()}`, 60_000);
    const listed = await runBin(['accounts', 'list', '--json'], { DATABASE_URL: url });
    assert.equal(listed.code, 0, listed.stderr);
    assert.deepEqual((JSON.parse(listed.stdout) as { accounts: { name: string }[] }).accounts.map((a) => a.name), ['Kept']);
    second.child.kill('SIGINT');
    assert.equal(await second.exited, 0, second.stderr());
  });

  test('when PG_PORT is taken, then db:postgres exits 1 naming PG_PORT', { timeout: 120_000 }, async (t) => {
    const dir = mkdtempSync(path.join(tmpdir(), 'store-orders-devpg-'));
    chmodSync(dir, 0o711);
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    const holder = createServer();
    const port = await new Promise<number>((resolve) =>
      holder.listen(0, '127.0.0.1', () => resolve((holder.address() as AddressInfo).port)),
    );
    t.after(() => holder.close());
    const dev = startDevPostgres(t, port, path.join(dir, 'postgres'));
    assert.equal(await dev.exited, 1);
    assert.equal(dev.stderr(), `db:postgres: port ${port} is in use: stop what holds it or choose another with PG_PORT=<port>\n`);
  });

  test('when migrate names a database that does not exist and the role may create it, then it creates it (any name, quoted) and says so', async (t) => {
    const name = `new "store"-${randomBytes(4).toString('hex')}`;
    t.after(() => asAdmin((client) => client.query(`DROP DATABASE IF EXISTS ${pg.escapeIdentifier(name)} WITH (FORCE)`)));
    const url = await urlFor(name);

    const created = await runBin(['migrate', '--json'], { DATABASE_URL: url });
    assert.equal(created.code, 0, created.stderr);
    const report = JSON.parse(created.stdout) as { createdDatabase?: string; applied: string[] };
    assert.equal(report.createdDatabase, name);
    assert.ok(report.applied.length > 0);

    const again = await runBin(['migrate'], { DATABASE_URL: url });
    assert.equal(again.code, 0, again.stderr);
    assert.match(again.stdout, /^Schema is up to date/, 'an existing database is not created again');
    assert.equal(await asAdmin(async (client) => (await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name])).rowCount), 1);
  });

  test('when the role may not create the database, then migrate exits 1 saying what an administrator must run, without the password', async (t) => {
    const role = `nocreate_${randomBytes(4).toString('hex')}`;
    const password = 'Role-Pa55word-x';
    await asAdmin((client) => client.query(`CREATE ROLE ${role} LOGIN NOCREATEDB PASSWORD '${password}'`));
    t.after(() => asAdmin((client) => client.query(`DROP ROLE IF EXISTS ${role}`)));
    const database = `missing_${randomBytes(4).toString('hex')}`;

    const result = await runBin(['migrate', '--json'], { DATABASE_URL: await urlFor(database, { user: role, password }) });
    assert.equal(result.code, 1);
    const message =
      `database "${database}" does not exist and role "${role}" may not create it. ` +
      `Ask an administrator to run: CREATE DATABASE "${database}" OWNER "${role}"; ` +
      '(or to give the role CREATEDB), then run migrate again.';
    assert.equal(result.stderr, `store-orders: ${message}\n`);
    assert.deepEqual(JSON.parse(result.stdout), { code: 'database_not_created', message, exitCode: 1 });
    assert.ok(!(result.stdout + result.stderr).includes(password));
  });
});
