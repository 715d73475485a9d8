/** `store-orders accounts delete`: the operator's counterpart of the portal's danger zone (docs/cli.md). */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { cliOn } from '../support/cli.js';

test('when the operator deletes an account with its name, then its keys are revoked, accounts list shows it deleted, its trail ends with the entry, and nobody gets a key, an endpoint or a way in', async (t) => {
  const cli = cliOn(t);
  assert.equal((await cli.run('accounts', 'create', '--name', 'Harbour Pets')).code, 0);
  assert.equal((await cli.run('accounts', 'create', '--name', 'Main Street Pets')).code, 0);
  assert.equal((await cli.run('keys', 'create', '--account', '1')).code, 0);

  const mistyped = await cli.run('accounts', 'delete', '--account', '1', '--name', 'harbour pets');
  assert.equal(mistyped.code, 1);
  assert.match(mistyped.stderr, /Type the store's name, Harbour Pets, exactly as it is shown to confirm\./);
  const deleted = await cli.run('accounts', 'delete', '--account', '1', '--name', 'Harbour Pets');
  assert.equal(deleted.code, 0, deleted.stderr);
  assert.match(deleted.stdout, /Deleted account 1 \(Harbour Pets\): 1 keys revoked, 0 members removed, 0 sessions ended, 0 invitations revoked, 0 webhook endpoints disabled\./);

  const listed = await cli.run('accounts', 'list');
  assert.match(listed.stdout, /^1\tHarbour Pets\t\S+\tdeleted \S+$/m);
  assert.match(listed.stdout, /^2\tMain Street Pets\t\S+$/m);
  const json = JSON.parse((await cli.run('accounts', 'list', '--json')).stdout) as { accounts: { id: number; deletedAt: string | null }[] };
  assert.deepEqual(json.accounts.map((account) => account.deletedAt === null), [false, true]);
  const trail = JSON.parse((await cli.run('audit', 'list', '--account', '1', '--json')).stdout) as { data: { action: string; actor: { kind: string }; details: Record<string, unknown> }[] };
  assert.deepEqual(trail.data[0], { ...trail.data[0], action: 'account_deleted', actor: { kind: 'operator' }, details: { name: 'Harbour Pets' } });
  assert.equal(trail.data[1]?.action, 'authn_token_created', 'the trail before it is kept');

  const key = await cli.run('keys', 'create', '--account', '1');
  assert.equal(key.code, 1, 'no key in a deleted account');
  const invite = await cli.run('users', 'invite', '--account', '1');
  assert.equal(invite.code, 1);
  assert.match(invite.stderr, /Account 1 was deleted at \S+\./);
  const endpoint = await cli.run('webhooks', 'create', '--account', '1', '--url', 'https://hooks.example.com/orders');
  assert.equal(endpoint.code, 1, 'no webhook endpoint in a deleted account');
  assert.match(endpoint.stderr, /Account 1 was deleted at/);
  const again = await cli.run('accounts', 'delete', '--account', '1', '--name', 'Harbour Pets');
  assert.equal(again.code, 1);
  assert.match(again.stderr, /deleted already/);
});
