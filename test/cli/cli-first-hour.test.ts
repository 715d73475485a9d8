import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { redactSecrets } from '../../src/cli/cli-errors.js';
import { cliOn } from '../support/cli.js';
import { createTestDatabase, testServerUrl } from '../support/postgres.js';
import { runBin } from '../support/process.js';

const VERSION = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;

/** The one JSON line a failing --json run prints on stdout. */
function errorRecord(stdout: string): unknown {
  const lines = stdout.trim().split('\n');
  assert.equal(lines.length, 1, `expected one line of JSON, got: ${stdout}`);
  return JSON.parse(lines[0] ?? '');
}

describe('operator CLI, the first hour', () => {
  test('when --version is asked (in-process and as a process), then it prints the package.json version and exits 0', async (t) => {
    const cli = cliOn(t, { PORT: 'eighty' });
    for (const flag of ['--version', '-V']) {
      const result = await cli.run(flag);
      assert.deepEqual(result, { code: 0, stdout: `store-orders ${VERSION}\n`, stderr: '' }, flag);
    }
    const spawned = await runBin(['--version'], {});
    assert.equal(spawned.code, 0, spawned.stderr);
    assert.equal(spawned.stdout, `store-orders ${VERSION}\n`);
  });

  test('when a command or a flag is mistyped, then the usage error suggests the likely one, and nothing when none is close', async (t) => {
    const cli = cliOn(t);
    const cases: [string[], string][] = [
      [['mirgate'], 'store-orders: unknown command "mirgate" (did you mean migrate?); run store-orders --help\n'],
      [['keys', 'craete'], 'store-orders: unknown command "keys craete" (did you mean keys create?); run store-orders --help\n'],
      [['acounts'], 'store-orders: unknown command "acounts" (did you mean accounts?); run store-orders --help\n'],
      [['bogus'], 'store-orders: unknown command "bogus"; run store-orders --help\n'],
      [
        ['accounts', 'create', '--nmae', 'x'],
        'store-orders: accounts create: Unknown option \'--nmae\' (did you mean --name?); run store-orders accounts create --help\n',
      ],
      [
        ['orders', 'list', '--acount', '1'],
        'store-orders: orders list: Unknown option \'--acount\' (did you mean --account?); run store-orders orders list --help\n',
      ],
      [['orders', 'list', '--zzzzzz', '1'], 'store-orders: orders list: Unknown option \'--zzzzzz\'; run store-orders orders list --help\n'],
    ];
    for (const [argv, stderr] of cases) {
      const result = await cli.run(...argv);
      assert.equal(result.code, 2, argv.join(' '));
      assert.equal(result.stderr, stderr, argv.join(' '));
      assert.equal(result.stdout, '', argv.join(' '));
    }
  });

  test('when a --json run fails, then stdout carries one {code, message, exitCode} record and stderr the same message in words', async (t) => {
    const cli = cliOn(t);
    const missing = await cli.run('orders', 'list', '--account', '999', '--json');
    assert.equal(missing.code, 1);
    assert.equal(missing.stderr, 'store-orders: Account 999 does not exist.\n');
    assert.deepEqual(errorRecord(missing.stdout), { code: 'account_not_found', message: 'Account 999 does not exist.', exitCode: 1 });

    const usage = await cli.run('keys', 'create', '--json');
    assert.equal(usage.code, 2);
    assert.deepEqual(errorRecord(usage.stdout), { code: 'usage_error', message: 'keys create: --account is required', exitCode: 2 });

    const typo = await cli.run('acounts', 'list', '--json');
    assert.equal(typo.code, 2);
    assert.deepEqual(errorRecord(typo.stdout), {
      code: 'unknown_command',
      message: 'unknown command "acounts" (did you mean accounts?); run store-orders --help',
      exitCode: 2,
    });

    const config = await cliOn(t, { PORT: 'eighty' }).run('accounts', 'list', '--json');
    assert.equal(config.code, 2);
    assert.equal((errorRecord(config.stdout) as { code: string }).code, 'invalid_configuration');
    // Without --json, stdout stays empty on failure.
    assert.equal((await cli.run('orders', 'list', '--account', '999')).stdout, '');
  });

  test('when orders list names an account that does not exist, then it says so and exits 1 on SQLite and PostgreSQL, like keys list', async (t) => {
    const database = await createTestDatabase();
    t.after(() => database.dropLater());
    for (const cli of [cliOn(t), cliOn(t, { DATABASE_URL: database.url })]) {
      for (const argv of [['orders', 'list', '--account', '999'], ['keys', 'list', '--account', '999']]) {
        const result = await cli.run(...argv);
        assert.deepEqual(result, { code: 1, stdout: '', stderr: 'store-orders: Account 999 does not exist.\n' }, argv.join(' '));
      }
      assert.equal((await cli.run('accounts', 'create', '--name', 'Empty')).code, 0);
      assert.deepEqual(await cli.run('orders', 'list', '--account', '1'), { code: 0, stdout: 'No orders.\n', stderr: '' });
    }
  });

  test('when PostgreSQL refuses the password, then the operator reads why in database terms, and never the password', async (t) => {
    const url = new URL(await testServerUrl());
    url.password = 'wrong-Secret-Pa55';
    const cli = cliOn(t, { DATABASE_URL: url.toString() });
    const result = await cli.run('accounts', 'list', '--json');
    assert.equal(result.code, 1);
    assert.equal(result.stderr, `store-orders: cannot connect to the database: password authentication failed for user "${url.username}"\n`);
    assert.deepEqual(errorRecord(result.stdout), {
      code: 'database_unavailable',
      message: `cannot connect to the database: password authentication failed for user "${url.username}"`,
      exitCode: 1,
    });
    assert.doesNotMatch(result.stdout + result.stderr, /wrong-Secret-Pa55|unexpected error|retry the request/);
  });

  test('when PostgreSQL is not reachable, then the CLI names the connection failure, not an HTTP retry hint, and hides the URL', async (t) => {
    const cli = cliOn(t, { DATABASE_URL: 'postgres://store:hunter2hunter2@127.0.0.1:1/store' });
    for (const argv of [['accounts', 'list'], ['migrate']]) {
      const result = await cli.run(...argv);
      assert.equal(result.code, 1, argv.join(' '));
      assert.equal(result.stderr, 'store-orders: cannot connect to the database: connect ECONNREFUSED 127.0.0.1:1\n', argv.join(' '));
      assert.doesNotMatch(result.stdout + result.stderr, /hunter2|retry the request|unexpected error/);
    }
  });

  test('when a message quotes the database URL or its password, then the output shows neither', () => {
    const env = { DATABASE_URL: 'postgres://store:p%40ss-w0rd@db.internal:5432/store' };
    assert.equal(
      redactSecrets('could not use postgres://store:p%40ss-w0rd@db.internal:5432/store (password p@ss-w0rd, raw p%40ss-w0rd)', env),
      'could not use <DATABASE_URL> (password ***, raw ***)',
    );
    assert.equal(redactSecrets('nothing secret here', { DATABASE_URL: 'sqlite:./data/store.db' }), 'nothing secret here');
    assert.equal(redactSecrets('see: DATABASE_URL=sqlite:./own.db store-orders users list', { DATABASE_URL: 'sqlite:./own.db' }), 'see: DATABASE_URL=sqlite:./own.db store-orders users list', 'no password, nothing to hide');
  });
});
