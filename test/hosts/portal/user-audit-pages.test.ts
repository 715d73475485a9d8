/**
 * Which account's audit trail a user's own events land in (docs/audit.md,
 * "Which account"), over real requests: a member of two stores has each
 * failed sign-in, password reset, address verification and change of
 * address in both trails, where each store's owner reads them on /audit;
 * a member removed from a store leaves no more entries there.
 */
import assert from 'node:assert/strict';
import { describe, test, type TestContext } from 'node:test';
import type { AuditEntry } from '../../../src/audit/audit-repository.js';
import { eventually } from '../../support/quickstart.js';
import { accountOf, createTestPortal, pageText, signUp, type TestPortal } from '../../support/portal.js';
import { joinInvited, signUpInvited } from '../../support/team.js';
import { httpBackends, type TestBackend } from '../../support/storage.js';

const NEW_PASSWORD = 'a brand new passphrase';

/** The path and query of the newest link of `kind` mailed to `to` whose path is `path` (ready for the test client). */
async function mailedPath(portal: TestPortal, to: string, kind: string, path: string): Promise<string> {
  const [mail] = (await portal.services.mail.list({ recipient: to, limit: 20 })).filter((candidate) => candidate.kind === kind);
  assert.ok(mail !== undefined, `a ${kind} mail to ${to}`);
  const link = new RegExp(`https?://\\S+${path}\\?\\S+`).exec((await portal.services.mail.show(mail.id))?.body.text ?? '')?.[0];
  assert.ok(link !== undefined, `a link to ${path} in the mail`);
  const url = new URL(link);
  return `${url.pathname}${url.search}`;
}

/** The account's entries about user `userId` (as the actor or the target), oldest first, as action names. */
async function entriesOf(portal: TestPortal, accountId: number, userId: number): Promise<string[]> {
  const { entries } = await portal.services.audit.list(accountId, { limit: 200 });
  const about = (entry: AuditEntry) => (entry.actor.kind === 'user' && entry.actor.id === userId) || (entry.target?.kind === 'user' && entry.target.id === String(userId));
  return entries.filter(about).map((entry) => entry.action).reverse();
}

/** Ann's store and Cat's, and Dan, invited by Ann and then joining Cat's store too. */
async function twoStoresWithDan(t: TestContext, backend: TestBackend) {
  const portal = await createTestPortal(t, backend);
  const { client: ann } = await signUp(portal, { email: 'ann@example.com', storeName: 'Main Street Pets' });
  const { client: cat } = await signUp(portal, { email: 'cat@example.com', storeName: 'Harbour Pets' });
  const dan = await signUpInvited(portal, ann, 'dan@example.com');
  await joinInvited(portal, cat, dan, 'dan@example.com');
  const danId = (await portal.storage.users.findByEmail('dan@example.com'))?.id ?? 0;
  return { portal, ann, cat, danId };
}

for (const backend of httpBackends()) {
  describe(`portal audit trail of a member of several stores: ${backend.name}`, () => {
    test('when a member of two stores fails to sign in, resets the password, verifies and changes the address, then each is in both stores’ trails, and each owner sees it on /audit', async (t) => {
      const { portal, ann, cat, danId } = await twoStoresWithDan(t, backend);
      const stores = [await accountOf(portal, 'ann@example.com'), await accountOf(portal, 'cat@example.com')];

      assert.equal((await portal.client().post('/sign-in', { email: 'dan@example.com', password: 'not the password at all' }, {}, '/sign-in')).statusCode, 401);
      assert.equal((await portal.client().get(await mailedPath(portal, 'dan@example.com', 'email-verification', '/verify-email'))).statusCode, 200);
      const reset = await portal.services.users.createPasswordReset('dan@example.com');
      const visitor = portal.client();
      await visitor.get(`/reset-password?token=${reset?.token ?? ''}`);
      assert.equal((await visitor.post('/reset-password', { token: reset?.token ?? '', password: NEW_PASSWORD })).statusCode, 303);
      const signedIn = portal.client();
      assert.equal((await signedIn.post('/sign-in', { email: 'dan@example.com', password: NEW_PASSWORD }, {}, '/sign-in')).statusCode, 303);
      assert.equal((await signedIn.post('/settings/email', { newEmail: 'daniel@example.com', emailPassword: NEW_PASSWORD }, {}, '/settings')).statusCode, 200);
      assert.equal((await portal.client().get(await mailedPath(portal, 'daniel@example.com', 'email-verification', '/verify-email'))).statusCode, 200);

      const userEvents = ['authn_login_fail', 'user_email_verified', 'authn_password_change', 'user_email_change_requested', 'user_email_changed'];
      for (const accountId of stores) {
        const actions = await eventually(async () => {
          const found = await entriesOf(portal, accountId, danId);
          return found.includes('authn_login_fail') ? found : undefined;
        });
        assert.deepEqual(
          actions.filter((action) => userEvents.includes(action)),
          userEvents,
          `account ${accountId}: ${actions.join(', ')}`,
        );
      }
      for (const owner of [ann, cat]) {
        const text = pageText((await owner.get('/audit')).body);
        for (const label of ['Sign-in failed', 'Password changed', 'Email address verified', 'Email address changed']) assert.match(text, new RegExp(label));
      }
    });

    test('when a member removed from the store they were invited to fails to sign in, then the entry is in the store they still belong to and not in the one they left', async (t) => {
      const { portal, ann, danId } = await twoStoresWithDan(t, backend);
      const [left, kept] = [await accountOf(portal, 'ann@example.com'), await accountOf(portal, 'cat@example.com')];
      assert.equal((await ann.post(`/team/members/${danId}/remove`, {}, {}, '/team')).statusCode, 303);
      assert.equal(await accountOf(portal, 'dan@example.com'), left, 'the user was created into the store they left');

      for (let attempt = 0; attempt < 2; attempt += 1) {
        assert.equal((await portal.client().post('/sign-in', { email: 'dan@example.com', password: 'not the password at all' }, {}, '/sign-in')).statusCode, 401);
      }
      const failures = await eventually(async () => {
        const found = (await entriesOf(portal, kept, danId)).filter((action) => action === 'authn_login_fail');
        return found.length === 2 ? found : undefined;
      });
      assert.equal(failures.length, 2);
      const inLeft = await entriesOf(portal, left, danId);
      assert.deepEqual(inLeft.filter((action) => action === 'authn_login_fail'), [], `nothing more in the store they left: ${inLeft.join(', ')}`);
      assert.equal(inLeft.at(-1), 'member_removed', 'the removal is the last word on them there');
    });
  });
}
