import assert from 'node:assert/strict';
import { test } from 'node:test';
import { cliOn } from '../support/cli.js';

test('when `pets create --account <id> --name <name> --json` runs, then it prints the new pet with its int64 id', async (t) => {
  const cli = cliOn(t);
  assert.equal((await cli.run('accounts', 'create', '--name', 'Shop')).code, 0);

  const created = await cli.run('pets', 'create', '--account', '1', '--name', 'Rex', '--json');
  assert.equal(created.code, 0, created.stderr);
  const pet = JSON.parse(created.stdout) as Record<string, unknown>;
  assert.deepEqual(Object.keys(pet), ['id', 'accountId', 'name', 'createdAt']);
  assert.equal(pet.name, 'Rex');
  assert.equal(pet.accountId, 1);

  const big = await cli.run('pets', 'create', '--account', '1', '--name', 'Max', '--id', '9007199254740993', '--json');
  assert.match(big.stdout, /^\{"id":9007199254740993,/);

  const human = await cli.run('pets', 'create', '--account', '1', '--name', 'Bella');
  assert.match(human.stdout, /^Created pet \d+ \(Bella\) for account 1\.\n$/);
});

test('when `pets create` names an unknown account or omits --name, then it fails with exit 1 or 2', async (t) => {
  const cli = cliOn(t);
  const unknown = await cli.run('pets', 'create', '--account', '9', '--name', 'Rex');
  assert.equal(unknown.code, 1);
  assert.match(unknown.stderr, /Account 9 does not exist/);
  const usage = await cli.run('pets', 'create', '--account', '1');
  assert.equal(usage.code, 2);
  assert.match(usage.stderr, /--name is required/);
});
