/**
 * Deleting the store from the portal (docs/portal.md, "Deleting an
 * account"), over real requests: owners only, the store's name typed, a
 * recent authentication; then its keys fail on the store host at once,
 * every member's session in it ends, a member of another store keeps that
 * one, a member of none signs in to the no-store page, and the operator
 * finds the account deleted with its audit entry.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { API_KEY_SCOPES } from '../../../src/api-keys/api-key-scopes.js';
import { accountOf, createTestPortal, listOrdersWith, pageText, portalStoreApp, signUp, TEST_PASSWORD } from '../../support/portal.js';
import { httpBackends } from '../../support/storage.js';
import { joinInvited, signUpInvited } from '../../support/team.js';

const STORE = 'Main Street Pets';
/** Just past the re-authentication window (10 minutes), well within the idle timeout (30). */
const PAST_WINDOW_MS = 11 * 60_000;


for (const backend of httpBackends()) {
  describe(`portal account deletion: ${backend.name}`, () => {
    test('when the owner types the store’s name and deletes it, then they are signed out with a notice, its key fails at once, members’ sessions in it end, a member of another store keeps it, one of none signs in to nothing, and the operator sees it deleted with its entry', async (t) => {
      const portal = await createTestPortal(t, backend);
      const { client: ann } = await signUp(portal, { email: 'ann@example.com', storeName: STORE });
      const { client: bob } = await signUp(portal, { email: 'bob@example.com', storeName: 'Harbour Pets' });
      const dan = await signUpInvited(portal, ann, 'dan@example.com', 'developer');
      await joinInvited(portal, ann, bob, 'bob@example.com', 'viewer');
      const shop = await accountOf(portal, 'ann@example.com');
      const harbour = await accountOf(portal, 'bob@example.com');
      const created = await ann.post('/keys', { name: 'till', expiresIn: '90d', scope: [...API_KEY_SCOPES] }, {}, '/keys');
      const secret = /id="new-api-key"[^>]*value="([^"]+)"/.exec(created.body)?.[1] ?? '';
      const store = await portalStoreApp(t, portal);
      assert.equal((await listOrdersWith(store, secret)).statusCode, 200, 'the key works (and this process has it cached)');
      assert.equal((await bob.get('/')).statusCode, 200, 'bob works in the shop now (he accepted the invitation)');

      const team = await ann.get('/team');
      assert.match(pageText(team.body), /Delete this store Deleting Main Street Pets ends it for everyone at once/);
      assert.match(team.body, /<a class="button danger" href="\/account\/delete">Delete this store…<\/a>/);
      const page = await ann.get('/account/delete');
      assert.equal(page.statusCode, 200);
      assert.match(pageText(page.body), new RegExp(`Delete ${STORE}.*its API keys stop working.*This cannot be undone.*To confirm, type the store's name: ${STORE}`, 's'));

      const deleted = await ann.post('/account/delete', { storeName: ` ${STORE} ` });
      assert.equal(deleted.statusCode, 303, pageText(deleted.body));
      assert.equal(deleted.headers.location, '/sign-in?signed-out=deleted');
      assert.match(pageText((await ann.get('/sign-in?signed-out=deleted')).body), /The store was deleted and you have signed out\. Its API keys no longer work\./);

      assert.equal((await listOrdersWith(store, secret)).statusCode, 401, 'refused at once by the process that deleted it');
      for (const client of [ann, dan, bob]) assert.equal((await client.get('/keys')).statusCode, 303, 'every session in the store has ended');
      const annAgain = await portal.client().post('/sign-in', { email: 'ann@example.com', password: TEST_PASSWORD }, {}, '/sign-in');
      assert.equal(annAgain.statusCode, 403);
      assert.match(pageText(annAgain.body), /You are not a member of any store any more/);
      const bobAgain = portal.client();
      assert.equal((await bobAgain.post('/sign-in', { email: 'bob@example.com', password: TEST_PASSWORD }, {}, '/sign-in')).statusCode, 303);
      assert.match(pageText((await bobAgain.get('/')).body), /Harbour Pets/, 'bob keeps his own store');
      assert.deepEqual(
        (await portal.services.team.memberships((await portal.storage.users.findByEmail('bob@example.com'))?.id ?? 0)).map((membership) => membership.accountId),
        [harbour],
      );

      const account = await portal.services.accounts.requireAccount(shop);
      assert.equal(account.deletedAt, portal.clock.now().toISOString(), 'the operator finds it, deleted');
      const [entry] = (await portal.services.audit.list(shop, { limit: 1 })).entries;
      assert.equal(entry?.action, 'account_deleted');
      assert.deepEqual(entry?.actor, { kind: 'user', id: (await portal.storage.users.findByEmail('ann@example.com'))?.id });
      assert.deepEqual(entry?.details, { name: STORE });
    });

    test('when the typed name is wrong (another case, empty, another store’s), then 400 on the page saying so, before any password is asked, and nothing is deleted', async (t) => {
      const portal = await createTestPortal(t, backend);
      const { client: ann } = await signUp(portal, { email: 'ann@example.com', storeName: STORE });
      portal.clock.advance(PAST_WINDOW_MS);
      for (const storeName of ['main street pets', '', 'Harbour Pets']) {
        const refused = await ann.post('/account/delete', { storeName }, {}, '/account/delete');
        assert.equal(refused.statusCode, 400, storeName);
        assert.match(pageText(refused.body), new RegExp(`That is not the store's name\\. Type ${STORE} exactly as it is shown\\.`));
        assert.doesNotMatch(pageText(refused.body), /Confirm it is you/);
      }
      assert.equal((await portal.services.accounts.requireAccount(await accountOf(portal, 'ann@example.com'))).deletedAt, undefined);
      assert.equal((await ann.get('/keys')).statusCode, 200, 'still signed in');
    });

    test('when the sign-in is older than 10 minutes, then the deletion asks to confirm with the name carried over, and happens only once the password is given', async (t) => {
      const portal = await createTestPortal(t, backend);
      const { client: ann } = await signUp(portal, { email: 'ann@example.com', storeName: STORE });
      portal.clock.advance(PAST_WINDOW_MS);
      const asked = await ann.post('/account/delete', { storeName: STORE }, {}, '/account/delete');
      assert.equal(asked.statusCode, 200);
      assert.match(pageText(asked.body), new RegExp(`Confirm it is you To delete ${STORE}, confirm with your password`));
      assert.match(asked.body, new RegExp(`<input type="hidden" name="storeName" value="${STORE}">`));
      const shop = await accountOf(portal, 'ann@example.com');
      assert.equal((await portal.services.accounts.requireAccount(shop)).deletedAt, undefined, 'nothing deleted yet');
      const confirmed = await ann.post('/account/delete', { storeName: STORE, confirmPassword: TEST_PASSWORD, confirmStep: '1' });
      assert.equal(confirmed.statusCode, 303, pageText(confirmed.body));
      assert.notEqual((await portal.services.accounts.requireAccount(shop)).deletedAt, undefined);
    });

    test('when a developer or a viewer opens the deletion page or posts it, then 403 in words, audited, and nothing is deleted', async (t) => {
      const portal = await createTestPortal(t, backend);
      const { client: ann } = await signUp(portal, { email: 'ann@example.com', storeName: STORE });
      const members = [await signUpInvited(portal, ann, 'dev@example.com', 'developer'), await signUpInvited(portal, ann, 'viewer@example.com', 'viewer')];
      for (const member of members) {
        const page = await member.get('/account/delete');
        assert.equal(page.statusCode, 403);
        assert.match(pageText(page.body), /this needs an owner/);
        assert.equal((await member.post('/account/delete', { storeName: STORE }, {}, '/team')).statusCode, 403);
        assert.doesNotMatch((await member.get('/team')).body, /href="\/account\/delete"/, 'no danger zone for them');
      }
      const shop = await accountOf(portal, 'ann@example.com');
      assert.equal((await portal.services.accounts.requireAccount(shop)).deletedAt, undefined);
      const refusals = (await portal.services.audit.list(shop, { limit: 50 })).entries.filter((entry) => entry.action === 'authz_fail');
      assert.equal(refusals.filter((entry) => String(entry.details.route).endsWith('/account/delete')).length, 4);
    });
  });
}
