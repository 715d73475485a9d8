import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { cliOn } from '../support/cli.js';
import { API_KEY_SCOPES } from '../../src/api-keys/api-key-scopes.js';

function json(stdout: string): Record<string, unknown> {
  return JSON.parse(stdout) as Record<string, unknown>;
}

describe('operator CLI: key lifetime, scopes and rotation', () => {
  test('when a key is created with --scopes and --expires-in, then list shows them and never the secret', async (t) => {
    const cli = cliOn(t);
    assert.equal((await cli.run('accounts', 'create', '--name', 'Acme')).code, 0);
    const before = Date.now();
    const created = await cli.run('keys', 'create', '--account', '1', '--scopes', 'orders:read,pets:read', '--expires-in', '90d', '--json');
    assert.equal(created.code, 0, created.stderr);
    const key = json(created.stdout);
    assert.deepEqual(key.scopes, ['orders:read', 'pets:read']);
    const expiresAt = Date.parse(String(key.expiresAt));
    assert.ok(expiresAt >= before + 90 * 86_400_000 && expiresAt <= Date.now() + 90 * 86_400_000);

    const at = await cli.run('keys', 'create', '--account', '1', '--expires-at', '2099-01-01T00:00:00+01:00', '--json');
    assert.equal(json(at.stdout).expiresAt, '2098-12-31T23:00:00.000Z');
    assert.deepEqual(json(at.stdout).scopes, [...API_KEY_SCOPES], 'without --scopes, every scope');

    const listed = await cli.run('keys', 'list', '--account', '1', '--json');
    assert.ok(!listed.stdout.includes(String(key.key)));
    const keys = json(listed.stdout).keys as Record<string, unknown>[];
    assert.deepEqual(keys.map((k) => k.lastUsedAt), [null, null]);
    const human = await cli.run('keys', 'list', '--account', '1');
    assert.match(human.stdout, /orders:read,pets:read\tcreated .*\texpires /);
  });

  test('when keys roll runs, then it prints the new secret once and when the old key stops', async (t) => {
    const cli = cliOn(t);
    await cli.run('accounts', 'create', '--name', 'Acme');
    const old = json((await cli.run('keys', 'create', '--account', '1', '--name', 'deploy', '--json')).stdout);
    const rolled = await cli.run('keys', 'roll', String(old.id), '--grace', '2h', '--json');
    assert.equal(rolled.code, 0, rolled.stderr);
    const result = json(rolled.stdout);
    assert.match(String(result.key), /^so_prod_/);
    assert.notEqual(result.key, old.key);
    assert.equal(result.name, 'deploy');
    const replaced = result.replaced as Record<string, unknown>;
    assert.equal(replaced.id, old.id);
    const graceEnd = Date.parse(String(replaced.expiresAt));
    assert.ok(Math.abs(graceEnd - (Date.now() + 2 * 3_600_000)) < 60_000);

    const human = await cli.run('keys', 'roll', String(result.id));
    assert.equal(human.code, 0);
    assert.match(human.stdout, /keeps working until \d{4}-/, 'the default grace is 24h');
  });

  test('when the options are wrong, then exit 2 with a clear message', async (t) => {
    const cli = cliOn(t);
    await cli.run('accounts', 'create', '--name', 'Acme');
    const cases: [string[], RegExp][] = [
      [['keys', 'create', '--account', '1', '--scopes', 'orders:read,admin'], /unknown scope "admin"/],
      [['keys', 'create', '--account', '1', '--expires-in', '3 weeks'], /--expires-in must be a duration/],
      [['keys', 'create', '--account', '1', '--expires-in', '0'], /--expires-in must be a duration/],
      [['keys', 'create', '--account', '1', '--expires-at', 'tomorrow'], /--expires-at must be an ISO 8601/],
      [['keys', 'create', '--account', '1', '--expires-in', '1d', '--expires-at', '2099-01-01T00:00:00Z'], /not both/],
      [['keys', 'roll', '1', '--grace', 'forever'], /--grace must be a duration/],
    ];
    for (const [args, message] of cases) {
      const result = await cli.run(...args);
      assert.equal(result.code, 2, args.join(' '));
      assert.match(result.stderr, message, args.join(' '));
    }
    const past = await cli.run('keys', 'create', '--account', '1', '--expires-at', '2001-01-01T00:00:00Z');
    assert.equal(past.code, 1);
    assert.match(past.stderr, /future/);
    const missing = await cli.run('keys', 'roll', '42');
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /API key 42 does not exist/);
  });
});
