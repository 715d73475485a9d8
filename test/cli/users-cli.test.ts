/** `store-orders users …`: the operator's side of the portal, against the portal itself over the same database. */
import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import { Database } from '../../src/storage/sqlite/sqlite-driver.js';
import { openStorage } from '../../src/storage/open-storage.js';
import { cliOn } from '../support/cli.js';
import { createTestPortal, pageText, TEST_PASSWORD } from '../support/portal.js';
import { sqliteBackend } from '../support/storage.js';
import { turnOn } from '../support/two-step.js';

test('when an operator invites, lists, resets and disables portal users, then the links work once in the portal and the CLI reports each step', async (t) => {
  const cli = cliOn(t, { PORTAL_PUBLIC_URL: 'https://portal.example.com' });
  assert.equal((await cli.run('users', 'list')).stdout.trim(), 'No users.');
  await cli.run('accounts', 'create', '--name', 'Harbour Pets');

  const invite = await cli.run('users', 'invite', '--account', '1', '--json');
  assert.equal(invite.code, 0, invite.stderr);
  const { link, expiresAt, accountId, role } = JSON.parse(invite.stdout) as { link: string; expiresAt: string; accountId: number; role: string };
  assert.equal(accountId, 1);
  assert.equal(role, 'owner', 'owner unless --role says otherwise: what joining meant before roles');
  assert.match(link, /^https:\/\/portal\.example\.com\/sign-up\?invite=[A-Za-z0-9_-]{43}$/);
  assert.ok(Math.abs(Date.parse(expiresAt) - Date.now() - 7 * 24 * 3_600_000) < 60_000, 'valid 7 days');
  const token = new URL(link).searchParams.get('invite') ?? '';
  const file = cli.env.DATABASE_URL.slice('sqlite:'.length);
  const db = new Database(file, { readonly: true });
  const stored = db.prepare('SELECT token_hash FROM invitations').pluck().all() as string[];
  db.close();
  assert.equal(stored.length, 1);
  assert.notEqual(stored[0], token, 'only a hash is stored');

  const storage = openStorage({ kind: 'sqlite', path: path.resolve(file) });
  const portal = await createTestPortal(t, sqliteBackend, { over: { storage, database: { kind: 'sqlite', path: file } } });
  t.after(() => storage.close());
  const browser = portal.client();
  const signUp = await browser.post('/sign-up', { email: 'ann@example.com', password: TEST_PASSWORD, invite: token }, {}, `/sign-up?invite=${token}`);
  assert.equal(signUp.statusCode, 303);
  assert.equal((await browser.get('/')).statusCode, 200);

  const list = JSON.parse((await cli.run('users', 'list', '--json')).stdout) as { users: { email: string; accountId: number; disabledAt: string | null }[] };
  assert.deepEqual(list.users.map((u) => [u.email, u.accountId, u.disabledAt]), [['ann@example.com', 1, null]]);

  const reset = await cli.run('users', 'reset-password', 'Ann@Example.com');
  assert.equal(reset.code, 0, reset.stderr);
  const resetLink = /https:\/\/portal\.example\.com\/reset-password\?token=[A-Za-z0-9_-]{43}/.exec(reset.stdout)?.[0] ?? '';
  const resetPage = await portal.client().get(new URL(resetLink).pathname + new URL(resetLink).search);
  assert.equal(resetPage.statusCode, 200);
  assert.match(pageText(resetPage.body), /Choose a new password/);

  const disabled = await cli.run('users', 'disable', 'ann@example.com');
  assert.equal(disabled.code, 0, disabled.stderr);
  assert.match(disabled.stdout, /Disabled ann@example\.com; their portal sessions have ended\./);
  assert.equal((await browser.get('/')).statusCode, 303, 'the session ended at once');
  assert.notEqual((JSON.parse((await cli.run('users', 'list', '--json')).stdout) as typeof list).users[0]?.disabledAt, null);
  const viewerInvite = await cli.run('users', 'invite', '--account', '1', '--role', 'viewer');
  assert.equal(viewerInvite.code, 0, viewerInvite.stderr);
  assert.match(viewerInvite.stdout, /Sign-up link for account 1 as viewer/);
  const viewerToken = new URL(/https:\/\/\S+/.exec(viewerInvite.stdout)?.[0] ?? '').searchParams.get('invite') ?? '';
  const viewer = portal.client();
  assert.equal((await viewer.post('/sign-up', { email: 'vic@example.com', password: TEST_PASSWORD, invite: viewerToken }, {}, `/sign-up?invite=${viewerToken}`)).statusCode, 303);
  assert.equal((await viewer.post('/keys', { name: 'x', expiresIn: '90d', scope: 'orders:read' }, {}, '/keys')).statusCode, 403, 'a viewer makes no key');

  // The account's audit trail holds the sign-up (as the new user, from their address) and the disable (as the operator).
  const trail = JSON.parse((await cli.run('audit', 'list', '--account', '1', '--json')).stdout) as { data: { action: string; actor: { kind: string }; target?: { kind: string }; details: Record<string, unknown> }[] };
  const userEntries = trail.data.filter((entry) => entry.target?.kind === 'user').map((entry) => [entry.action, entry.actor.kind, entry.details]);
  assert.deepEqual(userEntries, [
    ['user_created', 'user', { invited: true }],
    ['user_disabled', 'operator', {}],
    ['user_created', 'user', { invited: true }],
  ]);
});

test('when a users command names no such user or account, then it fails with a clear record', async (t) => {
  const cli = cliOn(t);
  const unknown = await cli.run('users', 'disable', 'nobody@example.com', '--json');
  assert.equal(unknown.code, 1);
  assert.deepEqual(JSON.parse(unknown.stdout), {
    code: 'command_failed',
    // The hint names this run's database, as the operator's shell would need it.
    message: `no portal user has the email "nobody@example.com" (see: DATABASE_URL=${cli.env.DATABASE_URL} store-orders users list)`,
    exitCode: 1,
  });
  const reset = await cli.run('users', 'reset-password', 'nobody@example.com');
  assert.equal(reset.code, 1);
  const noAccount = await cli.run('users', 'invite', '--account', '99', '--json');
  assert.equal(noAccount.code, 1);
  assert.equal((JSON.parse(noAccount.stdout) as { code: string }).code, 'account_not_found');
  const usage = await cli.run('users', 'invite');
  assert.equal(usage.code, 2);
  await cli.run('accounts', 'create', '--name', 'Harbour Pets');
  const badRole = await cli.run('users', 'invite', '--account', '1', '--role', 'admin', '--json');
  assert.equal(badRole.code, 1);
  assert.match((JSON.parse(badRole.stdout) as { message: string }).message, /--role must be owner, developer or viewer/);
});

test('when a user who lost their phone and recovery codes asks, then `users two-step-off` lets the password alone sign them in again, audited; a second run changes nothing', async (t) => {
  const cli = cliOn(t);
  await cli.run('accounts', 'create', '--name', 'Harbour Pets');
  const invite = JSON.parse((await cli.run('users', 'invite', '--account', '1', '--json')).stdout) as { link: string };
  const token = new URL(invite.link).searchParams.get('invite') ?? '';
  const file = cli.env.DATABASE_URL.slice('sqlite:'.length);
  const storage = openStorage({ kind: 'sqlite', path: path.resolve(file) });
  const portal = await createTestPortal(t, sqliteBackend, { over: { storage, database: { kind: 'sqlite', path: file } } });
  t.after(() => storage.close());
  const owner = portal.client();
  assert.equal((await owner.post('/sign-up', { email: 'ann@example.com', password: TEST_PASSWORD, invite: token }, {}, `/sign-up?invite=${token}`)).statusCode, 303);
  await turnOn(portal, owner);
  const signIn = () => portal.client().post('/sign-in', { email: 'ann@example.com', password: TEST_PASSWORD }, {}, '/sign-in');
  assert.equal((await signIn()).headers.location, '/sign-in/two-step');

  const off = await cli.run('users', 'two-step-off', 'Ann@Example.com', '--json');
  assert.equal(off.code, 0, off.stderr);
  assert.equal((JSON.parse(off.stdout) as { twoStepWasOn: boolean }).twoStepWasOn, true);
  assert.equal((await signIn()).headers.location, '/', 'the password alone signs in');
  const audit = await cli.run('audit', 'list', '--account', '1');
  assert.match(audit.stdout, /authn_two_step_disabled/);
  const again = await cli.run('users', 'two-step-off', 'ann@example.com');
  assert.equal(again.code, 0, again.stderr);
  assert.match(again.stdout, /had no two-step sign-in: nothing changed/);
  const unknown = await cli.run('users', 'two-step-off', 'nobody@example.com');
  assert.notEqual(unknown.code, 0);
  assert.match(unknown.stderr, /no portal user has the email "nobody@example.com"/);
});
