import { readdirSync } from 'node:fs';
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { cliOn } from '../support/cli.js';

/** --json output must be exactly one JSON object on one line. */
function jsonOf(stdout: string): Record<string, unknown> {
  const lines = stdout.trim().split('\n');
  assert.equal(lines.length, 1, `expected one line of JSON, got: ${stdout}`);
  const value = JSON.parse(lines[0] ?? '') as unknown;
  assert.ok(value !== null && typeof value === 'object' && !Array.isArray(value));
  return value as Record<string, unknown>;
}

describe('operator CLI', () => {
  test('when an account, a key and orders are created with --json, then each prints one JSON object', async (t) => {
    const cli = cliOn(t);
    const migrate = await cli.run('migrate', '--json');
    assert.equal(migrate.code, 0);
    // Every migration on disk, so that the expectation survives new ones.
    const migrations = readdirSync(new URL('../../migrations/sqlite/', import.meta.url)).filter((f) => f.endsWith('.sql')).sort();
    assert.deepEqual(jsonOf(migrate.stdout), {
      applied: migrations.map((f) => f.slice(0, -'.sql'.length)),
      version: Number(migrations.at(-1)?.slice(0, 4)),
    });
    assert.deepEqual(jsonOf((await cli.run('migrate', '--json')).stdout).applied, []);

    const account = jsonOf((await cli.run('accounts', 'create', '--name', 'Acme Pets', '--json')).stdout);
    assert.equal(account.id, 1);
    assert.equal(account.name, 'Acme Pets');

    const key = await cli.run('keys', 'create', '--account', '1', '--name', 'laptop', '--json');
    assert.equal(key.code, 0);
    const keyJson = jsonOf(key.stdout);
    assert.match(String(keyJson.key), /^so_prod_[0-9A-Za-z]{36}$/);
    assert.equal(keyJson.accountId, 1);
    assert.equal(keyJson.name, 'laptop');

    const listed = await cli.run('keys', 'list', '--account', '1', '--json');
    assert.ok(!listed.stdout.includes(String(keyJson.key).slice(12)), 'keys list must never show the secret');
    assert.equal((jsonOf(listed.stdout).keys as unknown[]).length, 1);

    const order = await cli.run(
      'orders', 'create', '--account', '1', '--pet-id', '9007199254740993', '--quantity', '3',
      '--ship-date', '2026-12-01T10:00:00Z', '--complete', '--id', '9223372036854775807', '--json',
    );
    assert.equal(order.code, 0, order.stderr);
    assert.equal(
      order.stdout.trim(),
      '{"id":9223372036854775807,"accountId":1,"petId":9007199254740993,"quantity":3,"shipDate":"2026-12-01T10:00:00.000Z","complete":true,"status":"pending"}',
    );

    const shipped = await cli.run('orders', 'ship', '9223372036854775807', '--json');
    assert.equal(shipped.code, 0);
    assert.equal(shipped.stdout.trim(), '{"id":9223372036854775807,"status":"shipped"}');

    const accounts = jsonOf((await cli.run('accounts', 'list', '--json')).stdout);
    assert.deepEqual((accounts.accounts as { name: string }[]).map((a) => a.name), ['Acme Pets']);
  });

  test('when a key is created without --json, then the secret is printed once with a warning to store it', async (t) => {
    const cli = cliOn(t);
    await cli.run('accounts', 'create', '--name', 'A');
    const result = await cli.run('keys', 'create', '--account', '1');
    assert.equal(result.code, 0);
    assert.match(result.stdout, /so_prod_[0-9A-Za-z]{36}/);
    assert.match(result.stdout, /shown only this once/);
  });

  test('when keys revoke is repeated or names no key, then it says so and the exit code tells', async (t) => {
    const cli = cliOn(t);
    await cli.run('accounts', 'create', '--name', 'A');
    await cli.run('keys', 'create', '--account', '1');
    assert.deepEqual(jsonOf((await cli.run('keys', 'revoke', '1', '--json')).stdout), { id: 1, revoked: true, alreadyRevoked: false });
    assert.match((await cli.run('keys', 'revoke', '1')).stdout, /already revoked/);
    const missing = await cli.run('keys', 'revoke', '42');
    assert.equal(missing.code, 1);
    assert.equal(missing.stderr, 'store-orders: API key 42 does not exist.\n');
  });

  test('when orders ship meets a shipped, cancelled or missing order, then exit 1 with a one-line reason', async (t) => {
    const cli = cliOn(t);
    await cli.run('accounts', 'create', '--name', 'A');
    await cli.run('orders', 'create', '--account', '1', '--pet-id', '1', '--quantity', '1', '--id', '10');
    assert.equal((await cli.run('orders', 'ship', '10')).code, 0);
    const again = await cli.run('orders', 'ship', '10');
    assert.equal(again.code, 1);
    assert.equal(again.stderr, 'store-orders: Order 10 has already shipped.\n');
    const missing = await cli.run('orders', 'ship', '11');
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /^store-orders: Order 11 was not found\.\n$/);
  });

  test('when input is wrong, then a one-line message without a stack trace and a non-zero exit', async (t) => {
    const cli = cliOn(t);
    await cli.run('accounts', 'create', '--name', 'A');
    const cases: [string[], number, RegExp][] = [
      [[], 2, /Usage: store-orders/],
      [['bogus'], 2, /unknown command "bogus"/],
      [['accounts', 'create'], 2, /--name is required/],
      [['accounts', 'create', '--name', ''], 1, /Account name must be/],
      [['accounts', 'create', '--nmae', 'x'], 2, /Unknown option '--nmae'/],
      [['keys', 'create', '--account', 'one'], 2, /--account must be a positive integer/],
      [['keys', 'create', '--account', '7'], 1, /Account 7 does not exist/],
      [['keys', 'revoke'], 2, /expected <keyId>/],
      [['orders', 'create', '--account', '1', '--pet-id', '1e3', '--quantity', '1'], 2, /--pet-id must be a decimal integer in the int64 range/],
      [['orders', 'create', '--account', '1', '--pet-id', '1', '--quantity', '0'], 1, /Quantity must be an integer from 1/],
      [['orders', 'create', '--account', '1', '--pet-id', '1', '--quantity', '1', '--ship-date', '2026-12-01'], 1, /Ship date must be an ISO 8601 date-time/],
      [['orders', 'create', '--account', '1', '--pet-id', '1', '--quantity', '1', '--id', '99999999999999999999'], 2, /--id must be/],
      [['orders', 'ship', 'abc'], 2, /orderId must be a decimal integer/],
      [['serve', 'now'], 2, /serve takes no arguments/],
      [['orders', 'create', '--account', '1', '--pet-id', '1', '--quantity', '1', '--id', '-5'], 2, /^store-orders: orders create: [^\n]+\n$/],
    ];
    for (const [argv, code, message] of cases) {
      const result = await cli.run(...argv);
      assert.equal(result.code, code, argv.join(' '));
      assert.match(result.stderr, message, argv.join(' '));
      assert.doesNotMatch(result.stderr, /\n\s+at /, 'no stack trace');
      if (code === 1) assert.equal(result.stderr.trim().split('\n').length, 1, argv.join(' '));
    }
  });

  test('when an order id is already taken, then exit 1 and the first order is unchanged', async (t) => {
    const cli = cliOn(t);
    await cli.run('accounts', 'create', '--name', 'A');
    await cli.run('orders', 'create', '--account', '1', '--pet-id', '1', '--quantity', '1', '--id', '5');
    const dup = await cli.run('orders', 'create', '--account', '1', '--pet-id', '2', '--quantity', '9', '--id', '5');
    assert.equal(dup.code, 1);
    assert.equal(dup.stderr, 'store-orders: Order id 5 is already taken.\n');
    const list = jsonOf((await cli.run('orders', 'list', '--account', '1', '--json')).stdout);
    assert.deepEqual(list.orders, [{ id: 5, accountId: 1, petId: 1, quantity: 1, complete: false, status: 'pending' }]);
  });

  test('when the database file cannot be opened, then exit 1 with one line and no stack trace', async (t) => {
    const cli = cliOn(t, { DATABASE_URL: 'sqlite:/' });
    const result = await cli.run('accounts', 'list');
    assert.equal(result.code, 1);
    assert.match(result.stderr, /^store-orders: cannot open the database: [^\n]+\n$/);
  });

  test('when the configuration is invalid, then exit 2 naming the variable', async (t) => {
    const cli = cliOn(t, { PORT: 'eighty', DATABASE_URL: 'mysql://u:secret@h/db' });
    const result = await cli.run('accounts', 'list');
    assert.equal(result.code, 2);
    assert.match(result.stderr, /^store-orders: invalid configuration: .*PORT.*DATABASE_URL/);
    assert.ok(!result.stderr.includes('secret'));
  });
});
