/** The team's rules (users/team/team-service.ts) over a real database and the real composition root, with an injected clock. */
import assert from 'node:assert/strict';
import { describe, test, type TestContext } from 'node:test';
import type { Services } from '../../src/services.js';
import type { MemberRole } from '../../src/users/team/member-roles.js';
import type { TeamActor } from '../../src/users/team/team-service.js';
import { testConfig, testServices } from '../support/container.js';
import { signedUpOwner, TEST_PASSWORD } from '../support/portal.js';
import { manualClock } from '../support/quickstart.js';
import { httpBackends } from '../support/storage.js';

const ORIGIN = 'http://portal.test';
const DAY_MS = 86_400_000;

for (const backend of httpBackends()) {
  describe(`team service: ${backend.name}`, () => {
    async function setUp(t: TestContext) {
      const { storage } = await backend.freshDatabase(t);
      const clock = manualClock();
      const services = testServices(storage, { config: testConfig({ PORTAL_PUBLIC_URL: ORIGIN }), clock });
      const created = await signedUpOwner({ storage, services, clock }, { email: 'owner@example.com', storeName: 'Main Street Pets' });
      const owner = actor(created.id, created.accountId, 'owner');
      return { storage, services, clock, owner, accountId: created.accountId };
    }

    const actor = (userId: number, accountId: number, role: MemberRole): TeamActor => ({ userId, accountId, role, audit: { actor: { kind: 'user', id: userId }, address: '192.0.2.1' } });

    /** The invitation link of the newest invitation mail to `to`, read from its sealed body. */
    async function invitationToken(services: Services, to: string): Promise<string> {
      const mail = (await services.mail.list({ recipient: to, limit: 10 })).find((candidate) => candidate.kind === 'invitation');
      assert.ok(mail !== undefined, `an invitation mail to ${to}`);
      const opened = await services.mail.show(mail.id);
      const link = /https?:\/\/\S+/.exec(opened?.body.text ?? '')?.[0] ?? '';
      assert.ok(link.startsWith(`${ORIGIN}/sign-up?invite=`), link);
      return new URL(link).searchParams.get('invite') ?? '';
    }

    /** Signs up `email` with an invitation; the new user. */
    async function join(services: Services, email: string, token: string) {
      const joined = await services.users.acceptInvitationAsNewUser({ email, password: TEST_PASSWORD, inviteToken: token, origin: ORIGIN });
      assert.ok(joined.ok, JSON.stringify(joined));
      return joined.user;
    }

    test('when an owner invites by email, then a mail carries a one-time link valid 7 days, the invitee joins with its role once, and every step is audited with who did it', async (t) => {
      const { services, owner, accountId } = await setUp(t);
      const invited = await services.team.invite(owner, { email: ' Dev@Example.com ', role: 'developer', accountName: 'Main Street Pets', origin: ORIGIN });
      assert.ok(invited.ok);
      assert.equal(invited.invitation.email, 'dev@example.com');
      assert.equal(invited.invitation.expiresAt, new Date(Date.parse(invited.invitation.createdAt) + 7 * DAY_MS).toISOString());
      const token = await invitationToken(services, 'dev@example.com');
      assert.deepEqual((await services.team.list(accountId)).invitations.map((invitation) => invitation.email), ['dev@example.com']);

      const wrong = await services.users.acceptInvitationAsNewUser({ email: 'other@example.com', password: TEST_PASSWORD, inviteToken: token, origin: ORIGIN });
      assert.ok(!wrong.ok);
      assert.match(wrong.message, /sent to dev@example.com/, 'an emailed invitation is for its address');
      const dev = await join(services, 'dev@example.com', token);
      assert.equal(dev.accountId, accountId);
      const again = await services.users.acceptInvitationAsNewUser({ email: 'third@example.com', password: TEST_PASSWORD, inviteToken: token, origin: ORIGIN });
      assert.ok(!again.ok, 'the link works once');
      const { members, invitations } = await services.team.list(accountId);
      assert.deepEqual(members.map((member) => [member.email, member.role]), [['owner@example.com', 'owner'], ['dev@example.com', 'developer']]);
      assert.deepEqual(invitations, []);

      const trail = (await services.audit.list(accountId, { limit: 50 })).entries.filter((entry) => entry.action === 'member_invited');
      assert.equal(trail.length, 1);
      assert.deepEqual(trail[0]?.actor, { kind: 'user', id: owner.userId });
      assert.deepEqual(trail[0]?.details, { email: 'dev@example.com', role: 'developer' });
    });

    test('when an invitation is 7 days old, or revoked, then its link no longer works', async (t) => {
      const { services, clock, owner, accountId } = await setUp(t);
      assert.ok((await services.team.invite(owner, { email: 'late@example.com', role: 'viewer', accountName: 'Main Street Pets', origin: ORIGIN })).ok);
      const late = await invitationToken(services, 'late@example.com');
      clock.advance(7 * DAY_MS - 1);
      assert.ok(await services.team.peek(late), 'still valid a millisecond before');
      clock.advance(1);
      assert.equal(await services.team.peek(late), undefined);
      const expired = await services.users.acceptInvitationAsNewUser({ email: 'late@example.com', password: TEST_PASSWORD, inviteToken: late, origin: ORIGIN });
      assert.ok(!expired.ok);
      assert.equal((await services.team.list(accountId)).invitations.length, 0, 'an expired invitation is not pending');

      const revoked = await services.team.invite(owner, { email: 'gone@example.com', role: 'viewer', accountName: 'Main Street Pets', origin: ORIGIN });
      assert.ok(revoked.ok);
      const token = await invitationToken(services, 'gone@example.com');
      assert.ok((await services.team.revoke(owner, revoked.invitation.id)).ok);
      const second = await services.team.revoke(owner, revoked.invitation.id);
      assert.ok(!second.ok && second.reason === 'not_found');
      assert.equal(await services.team.peek(token), undefined);
      const audit = (await services.audit.list(accountId, { limit: 50 })).entries.map((entry) => entry.action);
      assert.ok(audit.includes('member_invitation_revoked'));
    });

    test('when a developer or a viewer tries to manage the team, then every change is refused (forbidden) and nothing changes', async (t) => {
      const { services, owner, accountId } = await setUp(t);
      assert.ok((await services.team.invite(owner, { email: 'dev@example.com', role: 'developer', accountName: 'x', origin: ORIGIN })).ok);
      const dev = await join(services, 'dev@example.com', await invitationToken(services, 'dev@example.com'));
      for (const role of ['developer', 'viewer'] as const) {
        const who = actor(dev.id, accountId, role);
        const outcomes = [
          await services.team.invite(who, { email: 'x@example.com', role: 'owner', accountName: 'x', origin: ORIGIN }),
          await services.team.changeRole(who, dev.id, 'owner'),
          await services.team.changeRole(who, owner.userId, 'viewer'),
          await services.team.remove(who, owner.userId),
          await services.team.revoke(who, 1),
        ];
        assert.deepEqual(outcomes.map((outcome) => (outcome.ok ? 'ok' : outcome.reason)), Array(5).fill('forbidden'), role);
      }
      assert.deepEqual((await services.team.list(accountId)).members.map((member) => member.role), ['owner', 'developer']);
      assert.deepEqual(await services.mail.list({ recipient: 'x@example.com', limit: 5 }), []);
    });

    test('when the last owner would be demoted or removed, then it is refused; once another member is an owner, it is allowed, and the change is audited from and to', async (t) => {
      const { services, owner, accountId } = await setUp(t);
      const demote = await services.team.changeRole(owner, owner.userId, 'developer');
      assert.ok(!demote.ok && demote.reason === 'last_owner');
      const leave = await services.team.remove(owner, owner.userId);
      assert.ok(!leave.ok && leave.reason === 'last_owner');
      assert.ok((await services.team.invite(owner, { email: 'two@example.com', role: 'viewer', accountName: 'x', origin: ORIGIN })).ok);
      const two = await join(services, 'two@example.com', await invitationToken(services, 'two@example.com'));
      assert.ok((await services.team.changeRole(owner, two.id, 'owner')).ok);
      assert.ok((await services.team.changeRole(owner, owner.userId, 'viewer')).ok);
      const change = (await services.audit.list(accountId, { limit: 50 })).entries.find((entry) => entry.action === 'privilege_permissions_changed');
      assert.deepEqual(change?.details, { email: 'owner@example.com', from: 'owner', to: 'viewer' });
      const stranger = await services.team.changeRole(actor(two.id, accountId, 'owner'), 999_999, 'viewer');
      assert.ok(!stranger.ok && stranger.reason === 'not_found');
    });

    test('when a member is removed, then their sessions in that account end at once and the removal is audited', async (t) => {
      const { services, owner, accountId } = await setUp(t);
      assert.ok((await services.team.invite(owner, { email: 'dev@example.com', role: 'developer', accountName: 'x', origin: ORIGIN })).ok);
      const dev = await join(services, 'dev@example.com', await invitationToken(services, 'dev@example.com'));
      const cookie = (await services.sessions.start(dev.id, { userAgent: undefined, address: '192.0.2.9' }))?.token;
      assert.ok(cookie !== undefined);
      assert.equal((await services.sessions.resolve(cookie))?.role, 'developer');
      assert.ok((await services.team.remove(owner, dev.id)).ok);
      assert.equal(await services.sessions.resolve(cookie), undefined);
      assert.equal(await services.sessions.start(dev.id, { userAgent: undefined, address: '192.0.2.9' }), undefined, 'a user of no account gets no session');
      const removal = (await services.audit.list(accountId, { limit: 50 })).entries.find((entry) => entry.action === 'member_removed');
      assert.deepEqual(removal?.actor, { kind: 'user', id: owner.userId });
      assert.deepEqual(removal?.target, { kind: 'user', id: String(dev.id) });
    });

    test('when an existing user accepts an invitation to another store, then they join with its role, once, and only with the address it was sent to', async (t) => {
      const { storage, services, clock, owner, accountId } = await setUp(t);
      const other = await signedUpOwner({ storage, services, clock }, { email: 'cat@example.com', storeName: 'Harbour Pets' });
      const stranger = await signedUpOwner({ storage, services, clock }, { email: 'eve@example.com', storeName: 'Elsewhere' });
      assert.ok((await services.team.invite(owner, { email: 'cat@example.com', role: 'viewer', accountName: 'x', origin: ORIGIN })).ok);
      const token = await invitationToken(services, 'cat@example.com');
      const context = { actor: { kind: 'user' as const, id: other.id } };
      const refused = await services.team.accept(stranger, token, context);
      assert.ok(!refused.ok && refused.reason === 'forbidden');
      const accepted = await services.team.accept(other, token, context);
      assert.ok(accepted.ok);
      assert.deepEqual(await services.team.memberships(other.id), [
        { accountId, accountName: 'Main Street Pets', role: 'viewer' },
        { accountId: other.accountId, accountName: 'Harbour Pets', role: 'owner' },
      ]);
      const twice = await services.team.accept(other, token, context);
      assert.ok(!twice.ok && twice.reason === 'not_found');
      const joined = (await services.audit.list(accountId, { limit: 50 })).entries.find((entry) => entry.action === 'member_joined');
      assert.deepEqual(joined?.actor, { kind: 'user', id: other.id });

      const started = await services.sessions.start(other.id, { userAgent: undefined, address: '192.0.2.3' });
      assert.equal(started?.accountId, other.accountId);
      const cookie = started?.token;
      assert.ok(cookie !== undefined);
      const signedIn = await services.sessions.resolve(cookie);
      assert.ok(signedIn !== undefined);
      assert.equal(signedIn.user.accountId, other.accountId, 'a session starts in the user’s own store');
      assert.equal(await services.sessions.switchAccount(signedIn, accountId), true);
      assert.deepEqual(
        await services.sessions.resolve(cookie).then((now) => [now?.user.accountId, now?.role, now?.accountName]),
        [accountId, 'viewer', 'Main Street Pets'],
      );
      assert.equal(await services.sessions.switchAccount(signedIn, stranger.accountId), false, 'not a member there');
    });

    test('when the operator invites, then the link is for whoever holds it, with the role given', async (t) => {
      const { services, accountId } = await setUp(t);
      const { token, invitation } = await services.team.inviteByOperator(accountId, 'viewer');
      assert.equal(invitation.email, undefined);
      const viewer = await join(services, 'anyone@example.com', token);
      assert.deepEqual((await services.team.list(accountId)).members.find((member) => member.userId === viewer.id)?.role, 'viewer');
      const entry = (await services.audit.list(accountId, { limit: 50 })).entries.find((candidate) => candidate.action === 'member_invited');
      assert.deepEqual(entry?.actor, { kind: 'operator' });
    });
  });
}
