/**
 * How the CLI starts and ends as a process: what a command loads (lazy
 * imports per command), a reader that goes away (`| head`), and the
 * commands it prints for the operator to paste. Run against the built
 * bin/store-orders in child processes, as an operator runs it.
 */
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, test, type TestContext } from 'node:test';
import { COMMAND_MODULES } from '../../src/cli/commands/index.js';
import { cliOn } from '../support/cli.js';
import { BIN, ROOT, runBin, spawnBin, waitFor } from '../support/process.js';
import { runSql } from '../support/raw-sql.js';
import { databaseAssignment } from '../../src/shared/shell-hint.js';

const PRELOAD = path.join(ROOT, 'test', 'support', 'loaded-modules.mjs');

function tempDir(t: TestContext): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'store-orders-startup-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** Runs the built CLI with the module recorder preloaded: its exit code, output and every module it loaded. */
function runRecorded(t: TestContext, args: readonly string[], env: Record<string, string>): Promise<{ code: number; stdout: string; modules: string[] }> {
  const file = path.join(tempDir(t), 'modules.txt');
  return new Promise((resolve) => {
    execFile(process.execPath, ['--import', PRELOAD, BIN, ...args], { cwd: ROOT, env: { ...process.env, ...env, LOADED_MODULES_FILE: file } }, (error, stdout) => {
      const code = error === null ? 0 : typeof error.code === 'number' ? error.code : 1;
      resolve({ code, stdout, modules: readFileSync(file, 'utf8').split('\n') });
    });
  });
}

const loads = (modules: readonly string[], part: string) => modules.some((module) => module.includes(part));

describe('CLI start-up: what a command loads', () => {
  test('when --version, -v, -V or version is run, then it prints the version and loads no command, no configuration, no database and no package', async (t) => {
    const { version } = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string };
    for (const flag of ['--version', '-v', '-V', 'version']) {
      const run = await runRecorded(t, [flag], {});
      assert.equal(run.code, 0, flag);
      assert.equal(run.stdout, `store-orders ${version}\n`, flag);
      assert.ok(loads(run.modules, '/dist/cli/cli.js'), 'the recorder sees what loads');
      for (const part of ['/dist/cli/commands/accounts.js', '/dist/config/', '/dist/composition.js', '/dist/storage/sqlite/', '/node_modules/']) {
        assert.ok(!loads(run.modules, part), `${flag} loaded ${part}`);
      }
    }
  });

  test('when accounts list runs on SQLite, then it loads its own command and the composition root, and none of the server, TypeBox, prom-client, nodemailer, OpenTelemetry or another command', async (t) => {
    const env = { DATABASE_URL: `sqlite:${path.join(tempDir(t), 'store.db')}` };
    const run = await runRecorded(t, ['accounts', 'list'], env);
    assert.equal(run.code, 0);
    assert.equal(run.stdout, 'No accounts.\n');
    // The SQLite driver is better-sqlite3 12, or 13 under its alias where Node-API 10 is there (storage/sqlite/sqlite-driver.ts).
    const driver = Number(process.versions.napi) >= 10 ? '/node_modules/better-sqlite3-napi/' : '/node_modules/better-sqlite3/';
    for (const part of ['/dist/cli/commands/accounts.js', '/dist/composition.js', driver]) assert.ok(loads(run.modules, part), `loads ${part}`);
    for (const part of ['/dist/cli/commands/users.js', '/dist/cli/commands/keys.js', '/dist/server.js', '/dist/hosts/', '/node_modules/fastify/', '/node_modules/typebox/', '/node_modules/prom-client/', '/node_modules/nodemailer/', '/node_modules/@opentelemetry/']) {
      assert.ok(!loads(run.modules, part), `accounts list loaded ${part}`);
    }
  });

  test('when every command module is loaded, then each command starts with one of the words its module is listed under, and each word names a command', async () => {
    for (const module of COMMAND_MODULES) {
      const commands = await module.load();
      assert.ok(commands.length > 0);
      for (const command of commands) assert.ok(module.words.includes(command.name.split(' ')[0] ?? ''), `${command.name} is listed under ${module.words.join(', ')}`);
      for (const word of module.words) assert.ok(commands.some((command) => command.name.split(' ')[0] === word), `${word} names a command`);
    }
  });
});

/** An account with `count` orders, through the CLI in-process; the DATABASE_URL to reach it. */
async function accountWithOrders(t: TestContext, count: number): Promise<Record<string, string>> {
  const cli = cliOn(t);
  assert.equal((await cli.run('accounts', 'create', '--name', 'Pipe Pets')).code, 0);
  const file = path.join(tempDir(t), 'orders.ndjson');
  writeFileSync(file, Array.from({ length: count }, (_, i) => `{"petId":${i + 1},"quantity":1}\n`).join(''));
  const imported = await cli.run('orders', 'import', '--account', '1', file);
  assert.equal(imported.code, 0, imported.stderr);
  return { DATABASE_URL: cli.env.DATABASE_URL };
}

describe('CLI output: a reader that goes away', () => {
  test('when stdout is a pipe whose reader has gone before the command writes, then the command ends quietly with status 0, in text and --json', async (t) => {
    const env = await accountWithOrders(t, 3);
    for (const format of [[], ['--json']]) {
      const child = spawn(process.execPath, [BIN, 'orders', 'list', '--account', '1', ...format], { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
      // The only reader of the pipe closes it: every write the command makes fails with EPIPE.
      child.stdout.destroy();
      let stderr = '';
      child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
      const code = await new Promise<number | null>((resolve) => child.on('close', (exitCode) => resolve(exitCode)));
      assert.equal(stderr, '', `orders list ${format.join(' ')}`);
      assert.equal(code, 0, `orders list ${format.join(' ')}`);
    }
  });

  test('when a long listing is piped into head, then head prints its lines and the command ends quietly with status 0, in text and --json', async (t) => {
    const env = await accountWithOrders(t, 5000);
    const shell = (pipeline: string) =>
      new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
        execFile('bash', ['-o', 'pipefail', '-c', pipeline], { cwd: ROOT, env: { ...process.env, ...env } }, (error, stdout, stderr) => {
          resolve({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : 1, stdout, stderr });
        });
      });
    const text = await shell(`"${process.execPath}" bin/store-orders orders list --account 1 | head -2`);
    assert.equal(text.stderr, '');
    assert.equal(text.code, 0);
    assert.equal(text.stdout.split('\n').length, 3, 'two lines and the last line break');
    const json = await shell(`"${process.execPath}" bin/store-orders orders list --account 1 --json | head -c 100`);
    assert.equal(json.stderr, '');
    assert.equal(json.code, 0);
    assert.ok(json.stdout.startsWith('{"orders":['));
  });
});

describe('CLI output: commands printed for the operator', () => {
  /** Runs one printed line in a POSIX shell from the repository root, as pasted, without the test's DATABASE_URL. */
  function paste(line: string): Promise<{ code: number; stdout: string; stderr: string }> {
    const env: Record<string, string | undefined> = { ...process.env };
    delete env.DATABASE_URL;
    return new Promise((resolve) => {
      execFile('sh', ['-c', line], { cwd: ROOT, env }, (error, stdout, stderr) => {
        resolve({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : 1, stdout, stderr });
      });
    });
  }

  test('when serve starts on a SQLite file of its own with no account, then the commands its greeting prints, pasted in a shell without DATABASE_URL, create the account in that file', async (t) => {
    const file = path.join(tempDir(t), 'own.db');
    const server = spawnBin(t, ['serve'], { DATABASE_URL: `sqlite:${file}`, PORT: '0', QUICKSTART_PORT: 'off', METRICS_PORT: 'off', PORTAL_PORT: 'off', HOST: '127.0.0.1' });
    await waitFor(() => /keys create --account 1\n/.test(server.stderr()), 'the greeting');
    server.child.kill('SIGTERM');
    await server.exited;
    const lines = server.stderr().split('\n').filter((line) => line.includes('bin/store-orders '));
    assert.equal(lines.length, 2, server.stderr());
    for (const line of lines) assert.ok(line.trim().startsWith(`DATABASE_URL=sqlite:${file} ./bin/store-orders `), line);
    for (const line of lines) {
      const pasted = await paste(line.trim());
      assert.equal(pasted.code, 0, pasted.stderr);
    }
    const listed = await runBin(['accounts', 'list'], { DATABASE_URL: `sqlite:${file}` });
    assert.match(listed.stdout, /^1\tMy Pet Store\t/);
  });

  test('when users disable or mail show finds nothing on a SQLite file of its own, then the list command its error points to, pasted in a shell without DATABASE_URL, lists that file', async (t) => {
    const file = path.join(tempDir(t), 'own.db');
    await runBin(['accounts', 'create', '--name', 'Own'], { DATABASE_URL: `sqlite:${file}` });
    for (const args of [['users', 'disable', 'nobody@example.com'], ['mail', 'show', 'mail_missing']]) {
      const failed = await runBin(args, { DATABASE_URL: `sqlite:${file}` });
      assert.equal(failed.code, 1, failed.stderr);
      const hint = /\(see: ([^)]+)\)/.exec(failed.stderr)?.[1] ?? '';
      assert.ok(hint.startsWith(`DATABASE_URL=sqlite:${file} store-orders `), failed.stderr);
      const listed = await paste(hint.replace(' store-orders ', ' ./bin/store-orders '));
      assert.equal(listed.code, 0, listed.stderr);
    }
  });

  test('when the database URL holds a password, then the printed commands name the variable, never the password, and a shell without it refuses them instead of using the default SQLite file', async () => {
    const prefix = databaseAssignment({ kind: 'postgres', url: 'postgres://store:s3cret-pw@127.0.0.1:5432/store', poolSize: 1 }, ROOT);
    assert.ok(!prefix.includes('s3cret-pw'));
    const pasted = await paste(`${prefix}./bin/store-orders accounts list`);
    assert.notEqual(pasted.code, 0);
    assert.match(pasted.stderr, /DATABASE_URL/);
    assert.equal(pasted.stdout, '');
    // Where it is exported, as npm run db:postgres prints, the same line reaches it (here a SQLite file, to show the variable is used).
    const file = path.join(mkdtempSync(path.join(tmpdir(), 'store-orders-hint-')), 'exported.db');
    try {
      const exported = await paste(`export DATABASE_URL=sqlite:${file}; ${prefix}./bin/store-orders accounts create --name Exported`);
      assert.equal(exported.code, 0, exported.stderr);
      assert.match((await runBin(['accounts', 'list'], { DATABASE_URL: `sqlite:${file}` })).stdout, /^1\tExported\t/);
    } finally {
      rmSync(path.dirname(file), { recursive: true, force: true });
    }
    assert.equal(databaseAssignment({ kind: 'sqlite', path: path.join(ROOT, 'data', 'store.db') }, ROOT), '', 'the default database needs nothing');
    assert.equal(databaseAssignment({ kind: 'postgres', url: 'postgres://store@db.internal/store', poolSize: 1 }, ROOT), 'DATABASE_URL=postgres://store@db.internal/store ');
  });
});

describe('CLI output: text that users stored', () => {
  test('when a stored email and account name hold terminal escape sequences, then users list, accounts list and a failure print them escaped, in text and --json', async (t) => {
    const cli = cliOn(t);
    assert.equal((await cli.run('accounts', 'create', '--name', 'Plain Pets')).code, 0);
    // Stored behind the services' backs (they refuse control characters now): data from before that rule, or written by another tool.
    await runSql({ kind: 'sqlite', path: cli.env.DATABASE_URL.slice('sqlite:'.length) }, [
      "INSERT INTO users (account_id, email, password_hash, created_at) VALUES (1, 'eve' || char(27) || ']0;owned' || char(7) || '@example.com', 'x', '2026-11-27T00:00:00.000Z')",
      "UPDATE accounts SET name = 'Pets' || char(27) || '[2J' || char(155) || '31m' || char(8238) || 'evil' WHERE id = 1",
    ]);
    const users = await cli.run('users', 'list');
    assert.equal(users.code, 0, users.stderr);
    assert.match(users.stdout, /^\d+\teve\\x1b\]0;owned\\x07@example\.com\taccount 1\t/m);
    assert.ok(!users.stdout.includes('\x1b') && !users.stdout.includes('\x07'), 'no raw ESC or BEL');
    const accounts = await cli.run('accounts', 'list');
    assert.match(accounts.stdout, /^1\tPets\\x1b\[2J\\x9b31m\\u202eevil/m);
    assert.ok(!['\x1b', '\x9b', '\u202e'].some((character) => accounts.stdout.includes(character)), 'no raw ESC, CSI or right-to-left override');
    const json = JSON.parse((await cli.run('users', 'list', '--json')).stdout) as { users: { email: string }[] };
    assert.equal(json.users[0]?.email, 'eve\x1b]0;owned\x07@example.com', 'JSON carries the text exactly, escaped by JSON');
    // JSON.stringify leaves C1 and the bidirectional controls as they are: the CLI writes them as \u escapes.
    const accountsJson = await cli.run('accounts', 'list', '--json');
    assert.ok(!['\x1b', '\x9b', '\u202e'].some((character) => accountsJson.stdout.includes(character)), 'no raw control in --json');
    assert.match(accountsJson.stdout, /\\u009b31m\\u202eevil/);
    const parsed = JSON.parse(accountsJson.stdout) as { accounts: { name: string }[] };
    assert.equal(parsed.accounts[0]?.name, 'Pets\x1b[2J\x9b31m\u202eevil');
    // A failure's message quoting what was typed or stored, on stderr and in the --json record.
    const refused = await cli.run('users', 'disable', 'x\x9b2Jy@example.com', '--json');
    assert.equal(refused.code, 1);
    assert.ok(!refused.stderr.includes('\x9b') && !refused.stdout.includes('\x9b'), 'no raw CSI in the failure');
    assert.match(refused.stderr, /x\\x9b2Jy@example\.com/);
    assert.equal((JSON.parse(refused.stdout) as { message: string }).message.includes('x\x9b2Jy@example.com'), true);
  });
});
