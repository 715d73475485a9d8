/** The Team page, roles and account switching over real requests: every role refusal is a 403 page in words, checked on the server before the handler. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createTestPortal, pageText, signUp, TEST_PASSWORD, type PortalClient, type TestPortal } from '../../support/portal.js';
import { httpBackends } from '../../support/storage.js';

/** The invitation link's token in the newest invitation mail to `to`. */
async function invitationToken(portal: TestPortal, to: string): Promise<string> {
  const mail = (await portal.services.mail.list({ recipient: to, limit: 10 })).find((candidate) => candidate.kind === 'invitation');
  assert.ok(mail !== undefined, `an invitation mail to ${to}`);
  const opened = await portal.services.mail.show(mail.id);
  const link = /https?:\/\/\S+/.exec(opened?.body.text ?? '')?.[0] ?? '';
  return new URL(link).searchParams.get('invite') ?? '';
}

/** The owner invites `email` as `role` from the Team page; the invitee signs up with the mailed link in a browser of their own. */
async function invite(portal: TestPortal, owner: PortalClient, email: string, role: string): Promise<PortalClient> {
  const sent = await owner.post('/team/invitations', { email, role }, {}, '/team');
  assert.equal(sent.statusCode, 303, pageText(sent.body));
  const token = await invitationToken(portal, email);
  const invitee = portal.client();
  const form = await invitee.get(`/sign-up?invite=${token}`);
  assert.match(pageText(form.body), new RegExp(`as ${role}\\.`));
  const joined = await invitee.post('/sign-up', { email, password: TEST_PASSWORD, invite: token });
  assert.equal(joined.statusCode, 303, pageText(joined.body));
  return invitee;
}

/** A 403 page that says, in words, which role is needed. */
function assertRefused(response: { statusCode: number; body: string; headers: Record<string, unknown> }, what: string): void {
  assert.equal(response.statusCode, 403, what);
  assert.match(String(response.headers['content-type']), /text\/html/, what);
  assert.match(pageText(response.body), /Your role in Main Street Pets is (viewer|developer): this needs (a developer or an owner|an owner)\. Ask an owner/, what);
}

/** The portal's POST routes, as Fastify lists them (its route tree, one path segment a line), with each parameter given the value 1. */
function postRoutes(portal: TestPortal): string[] {
  const paths: string[] = [];
  const stack: string[] = [];
  for (const line of portal.app.printRoutes({ commonPrefix: false, method: 'POST' }).split('\n')) {
    const match = /^((?:│ {3}| {4})*)(?:├── |└── )(\S+) \(POST\)/.exec(line);
    if (match === null) continue;
    const depth = (match[1] ?? '').length / 4;
    stack[depth] = `${depth === 0 ? '' : (stack[depth - 1] ?? '')}${match[2] ?? ''}`;
    paths.push((stack[depth] ?? '').replace(/:[A-Za-z]+/g, '1'));
  }
  return paths;
}

/** Forms anyone may post (before signing in), and the forms every member uses for themself: all other POST routes change the account. */
const PUBLIC_FORMS = ['/sign-in', '/sign-up', '/sign-up/confirm', '/forgot-password', '/reset-password', '/passkeys/sign-in', '/passkeys/sign-in/options', '/sign-in/two-step'];
const OWN_FORMS = [
  '/sign-out',
  '/settings/email',
  '/settings/password',
  '/settings/sign-out-everywhere',
  '/settings/sessions/end',
  '/settings/sessions/end-others',
  '/passkeys/register',
  '/passkeys/register/options',
  '/settings/passkeys/confirm',
  '/settings/two-step/set-up',
  '/settings/two-step/confirm',
  '/settings/two-step/recovery-codes',
  '/settings/two-step/off',
  '/verify-email/resend',
  '/account/switch',
  '/invitations/accept',
];
const OWNER_ACTIONS = ['/team/invitations', '/team/invitations/1/revoke', '/team/members/1/role', '/team/members/1/remove'];
const DEVELOPER_PAGES = ['/keys/1/roll', '/keys/1/revoke', '/orders/1/cancel', '/webhooks/1/delete', '/webhooks/1/rotate'];

for (const backend of httpBackends()) {
  describe(`portal team and roles: ${backend.name}`, () => {
    test('when a viewer posts any form of the portal that changes the account (every POST route but the public ones and their own settings) or opens an action’s page, then each is a 403 page in words, audited; they read every page and are never shown a secret', async (t) => {
      const portal = await createTestPortal(t, backend);
      const { client: owner } = await signUp(portal, { email: 'owner@example.com' });
      const created = await owner.post('/keys', { name: 'till', expiresIn: '90d', scope: ['orders:read'] }, {}, '/keys');
      assert.equal(created.statusCode, 201);
      const viewer = await invite(portal, owner, 'viewer@example.com', 'viewer');
      await viewer.get('/');
      const accountActions = postRoutes(portal).filter((url) => !PUBLIC_FORMS.includes(url) && !OWN_FORMS.includes(url));
      assert.ok(accountActions.length >= 20 && accountActions.includes('/keys') && OWNER_ACTIONS.every((url) => accountActions.includes(url)), accountActions.join(' '));
      for (const url of accountActions) assertRefused(await viewer.post(url, { name: 'x', email: 'x@example.com', role: 'owner', expiresIn: '90d', grace: 'now' }), `POST ${url}`);
      for (const url of DEVELOPER_PAGES) assertRefused(await viewer.get(url), `GET ${url}`);
      const accountId = await accountIdOf(portal, 'owner@example.com');
      assert.equal((await portal.services.apiKeys.listKeys(accountId)).length, 1, 'no key was made');
      const refusals = (await portal.services.audit.list(accountId, { limit: 100 })).entries.filter((entry) => entry.action === 'authz_fail');
      assert.equal(refusals.length, accountActions.length + DEVELOPER_PAGES.length, 'every refusal is in the audit trail');
      const viewerId = (await portal.storage.users.findByEmail('viewer@example.com'))?.id;
      assert.deepEqual(
        refusals.map((entry) => [entry.actor, entry.details.route]).find(([, route]) => route === 'POST /keys'),
        [{ kind: 'user', id: viewerId }, 'POST /keys'],
      );
      assert.deepEqual(refusals.find((entry) => entry.details.route === 'POST /team/invitations')?.details, { route: 'POST /team/invitations', role: 'viewer', needed: 'owner' });
      for (const url of ['/', '/keys', '/orders', '/webhooks', '/audit', '/team', '/settings']) {
        const page = await viewer.get(url);
        assert.equal(page.statusCode, 200, url);
        assert.doesNotMatch(page.body, /id="new-api-key"|id="signing-secret"|so_(test|live)_[A-Za-z0-9]{20}/, `no secret on ${url}`);
      }
      assert.doesNotMatch((await viewer.get('/team')).body, /Send invitation|Change role/, 'a viewer is offered no team change');
      // What every member does for themself stays open: their own sessions, and signing out.
      assert.equal((await viewer.post('/settings/sessions/end-others', {}, {}, '/settings')).statusCode, 303);
      assert.equal((await viewer.post('/sign-out', {}, {}, '/settings')).statusCode, 303);
    });

    test('when a developer creates a key, then it is made and its secret shown; team changes are a 403 page in words', async (t) => {
      const portal = await createTestPortal(t, backend);
      const { client: owner } = await signUp(portal, { email: 'owner@example.com' });
      const developer = await invite(portal, owner, 'dev@example.com', 'developer');
      const created = await developer.post('/keys', { name: 'till', expiresIn: '90d', scope: ['orders:read'] }, {}, '/keys');
      assert.equal(created.statusCode, 201);
      assert.match(created.body, /id="new-api-key"[^>]*value="so_/);
      assert.equal((await developer.get('/keys/1/roll')).statusCode, 200);
      for (const url of OWNER_ACTIONS) assertRefused(await developer.post(url, { email: 'x@example.com', role: 'owner' }, {}, '/team'), `POST ${url}`);
      const trail = await portal.services.audit.list(await accountIdOf(portal, 'owner@example.com'), { limit: 20 });
      const keyEntry = trail.entries.find((entry) => entry.action === 'authn_token_created');
      const developerUser = await portal.storage.users.findByEmail('dev@example.com');
      assert.deepEqual(keyEntry?.actor, { kind: 'user', id: developerUser?.id }, 'the audit trail says which member did it');
    });

    test('when the owner manages the team, then the page lists members and pending invitations; revoke, role change and removal work, the removed member is signed out at once, and each is audited', async (t) => {
      const portal = await createTestPortal(t, backend);
      const { client: owner } = await signUp(portal, { email: 'owner@example.com' });
      const developer = await invite(portal, owner, 'dev@example.com', 'developer');
      assert.equal((await owner.post('/team/invitations', { email: 'later@example.com', role: 'viewer' }, {}, '/team')).statusCode, 303);
      const team = await owner.get('/team?done=invited');
      const text = pageText(team.body);
      assert.match(text, /The invitation is on its way/);
      assert.match(text, /owner@example\.com \(you\)\s+Owner/);
      assert.match(text, /dev@example\.com\s+Developer/);
      assert.match(text, /later@example\.com\s+Viewer/, 'the pending invitation');
      assert.match(text, /The only owner/, 'the last owner has no role or remove controls');

      const taken = await owner.post('/team/invitations', { email: 'dev@example.com', role: 'viewer' }, {}, '/team');
      assert.equal(taken.statusCode, 409);
      assert.match(pageText(taken.body), /already a member/);
      const badRole = await owner.post('/team/invitations', { email: 'x@example.com', role: 'admin' }, {}, '/team');
      assert.equal(badRole.statusCode, 400);

      const invitationId = /action="\/team\/invitations\/(\d+)\/revoke"/.exec(team.body)?.[1];
      assert.equal((await owner.post(`/team/invitations/${invitationId}/revoke`, {}, {}, '/team')).statusCode, 303);
      assert.doesNotMatch(pageText((await owner.get('/team')).body), /later@example\.com/);

      const devId = String((await portal.storage.users.findByEmail('dev@example.com'))?.id);
      assert.equal((await owner.post(`/team/members/${devId}/role`, { role: 'viewer' }, {}, '/team')).statusCode, 303);
      assertRefused(await developer.post('/keys', { name: 'x', expiresIn: '90d', scope: ['orders:read'] }, {}, '/keys'), 'a demoted member is refused at once');

      const ownerId = String((await portal.storage.users.findByEmail('owner@example.com'))?.id);
      const lastOwner = await owner.post(`/team/members/${ownerId}/role`, { role: 'developer' }, {}, '/team');
      assert.equal(lastOwner.statusCode, 409);
      assert.match(pageText(lastOwner.body), /at least one owner/);

      assert.match(pageText((await owner.get(`/team/members/${devId}/remove`)).body), /sessions in this account end at once/);
      assert.equal((await owner.post(`/team/members/${devId}/remove`, {}, {}, `/team/members/${devId}/remove`)).statusCode, 303);
      const after = await developer.get('/keys');
      assert.equal(after.statusCode, 303, 'the removed member is signed out');
      assert.match(String(after.headers.location), /^\/sign-in/);
      const signIn = await developer.post('/sign-in', { email: 'dev@example.com', password: TEST_PASSWORD }, {}, '/sign-in');
      assert.equal(signIn.statusCode, 403, 'a user of no account signs in to nothing');
      assert.match(pageText(signIn.body), /You are not a member of any store any more/);
      assert.equal(developer.sessionCookie(), undefined);

      const actions = (await portal.services.audit.list(await accountIdOf(portal, 'owner@example.com'), { limit: 50 })).entries.map((entry) => entry.action);
      for (const action of ['member_invited', 'member_invitation_revoked', 'privilege_permissions_changed', 'member_removed']) assert.ok(actions.includes(action as never), action);
    });

    test('when a signed-in user of another store opens an invitation, then they accept it as themself, switch between the stores from the header with a form, and a forged switch is refused', async (t) => {
      const portal = await createTestPortal(t, backend);
      const { client: owner } = await signUp(portal, { email: 'owner@example.com' });
      const { client: cat } = await signUp(portal, { email: 'cat@example.com', storeName: 'Harbour Pets' });
      assert.equal((await owner.post('/team/invitations', { email: 'cat@example.com', role: 'developer' }, {}, '/team')).statusCode, 303);
      const token = await invitationToken(portal, 'cat@example.com');
      const offer = await cat.get(`/sign-up?invite=${token}`);
      assert.match(pageText(offer.body), /You are invited to join Main Street Pets as developer\. You are signed in as cat@example\.com/);
      const accepted = await cat.post('/invitations/accept', { invite: token });
      assert.equal(accepted.statusCode, 303);
      const home = await cat.get('/team?done=joined');
      assert.match(pageText(home.body), /Welcome to the team/);
      assert.match(home.body, /<a class="brand" href="\/">Main Street Pets<\/a>/, 'the session now works in the store joined');
      const harbour = String(await accountIdOf(portal, 'cat@example.com'));
      assert.match(home.body, new RegExp(`<option value="${harbour}">Harbour Pets \\(owner\\)</option>`));

      const forged = await cat.post('/account/switch', { accountId: harbour }, { origin: 'https://evil.example' });
      assert.equal(forged.statusCode, 403);
      const stranger = await cat.post('/account/switch', { accountId: '999999' });
      assert.equal(stranger.statusCode, 403);
      const switched = await cat.post('/account/switch', { accountId: harbour });
      assert.equal(switched.statusCode, 303);
      assert.match((await cat.get('/')).body, /<a class="brand" href="\/">Harbour Pets<\/a>/);
      assert.equal((await cat.post('/invitations/accept', { invite: token }, {}, '/')).statusCode, 404, 'an invitation works once');
    });

    test('when PORTAL_REQUIRE_VERIFIED_EMAIL=true and the owner’s address is not verified, then an invitation waits for it, in words', async (t) => {
      const portal = await createTestPortal(t, backend, { env: { PORTAL_REQUIRE_VERIFIED_EMAIL: 'true' } });
      const { client: owner } = await signUp(portal, { email: 'owner@example.com', verified: false });
      const refused = await owner.post('/team/invitations', { email: 'dev@example.com', role: 'developer' }, {}, '/team');
      assert.equal(refused.statusCode, 403);
      assert.match(pageText(refused.body), /Verify your email address first/);
      assert.deepEqual(await portal.services.mail.list({ recipient: 'dev@example.com', limit: 1 }), []);
    });
  });
}

async function accountIdOf(portal: TestPortal, email: string): Promise<number> {
  const user = await portal.storage.users.findByEmail(email);
  if (user === undefined) throw new Error(`no user ${email}`);
  return user.accountId;
}
