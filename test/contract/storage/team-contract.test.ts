/** The team's part of the storage contract (memberships, roles, invitations, the account a session works in): the same cases on every adapter. */
import assert from 'node:assert/strict';
import { describe, test, type TestContext } from 'node:test';
import type { NewMail } from '../../../src/mail/mail-repository.js';
import type { Storage } from '../../../src/storage/storage.js';
import type { ContractCoverage } from '../../support/storage-contract.js';
import { storageBackends } from '../../support/storage.js';

export const CONTRACT_COVERS = {
  team: ['listMembers', 'listMemberships', 'setRole', 'removeMember', 'createInvitation', 'listInvitations', 'revokeInvitation', 'peekInvitation', 'acceptInvitation'],
  sessions: ['switchAccount'],
  users: ['createInvited'],
} as const satisfies ContractCoverage;

const AT = '2026-11-22T10:00:00.000Z';
const LATER = '2026-11-22T11:00:00.000Z';
const END = '2026-11-29T10:00:00.000Z';
const hashOf = (n: number) => n.toString(16).padStart(64, '0');
const handleOf = (n: number) => n.toString(16).padStart(32, 'a');

for (const backend of storageBackends({ postgresDirect: true })) {
  describe(`team storage: ${backend.name}`, () => {
    async function setUp(t: TestContext) {
      const { storage } = await backend.freshDatabase(t);
      const shop = await storage.accounts.create({ name: 'Main Street Pets', createdAt: AT });
      const other = await storage.accounts.create({ name: 'Harbour Pets', createdAt: AT });
      const ann = await storage.users.create({ accountId: shop.id, role: 'owner', email: 'ann@example.com', passwordHash: 'h', createdAt: AT });
      const bob = await storage.users.create({ accountId: shop.id, role: 'developer', email: 'bob@example.com', passwordHash: 'h', createdAt: LATER });
      const cat = await storage.users.create({ accountId: other.id, role: 'owner', email: 'cat@example.com', passwordHash: 'h', createdAt: AT });
      assert.ok(ann !== 'email_taken' && bob !== 'email_taken' && cat !== 'email_taken');
      return { storage, shop: shop.id, other: other.id, ann: ann.id, bob: bob.id, cat: cat.id };
    }

    async function startSession(storage: Storage, n: number, userId: number, accountId?: number): Promise<number | undefined> {
      return storage.sessions.create({ idHash: hashOf(n), userId, createdAt: AT, expiresAt: END, handle: handleOf(n), device: '', address: '', ...(accountId === undefined ? {} : { accountId }) });
    }

    test('when users are created, then each is a member of their account with their role, listed by join time, and lists the accounts they belong to', async (t) => {
      const { storage, shop, other, ann, bob, cat } = await setUp(t);
      assert.deepEqual(await storage.team.listMembers(shop), [
        { userId: ann, email: 'ann@example.com', role: 'owner', joinedAt: AT },
        { userId: bob, email: 'bob@example.com', role: 'developer', joinedAt: LATER },
      ]);
      assert.deepEqual(await storage.team.listMembers(other), [{ userId: cat, email: 'cat@example.com', role: 'owner', joinedAt: AT }]);
      assert.deepEqual(await storage.team.listMemberships(bob), [{ accountId: shop, accountName: 'Main Street Pets', role: 'developer' }]);
    });

    test('when roles change, then the last owner is never demoted, another owner may be, and a stranger is not_member', async (t) => {
      const { storage, shop, ann, bob, cat } = await setUp(t);
      assert.equal(await storage.team.setRole(shop, ann, 'viewer'), 'last_owner');
      assert.equal(await storage.team.setRole(shop, ann, 'owner'), 'changed', 'an owner stays an owner');
      assert.equal(await storage.team.setRole(shop, cat, 'viewer'), 'not_member', 'a member of another account only');
      assert.equal(await storage.team.setRole(shop, bob, 'owner'), 'changed');
      assert.equal(await storage.team.setRole(shop, ann, 'viewer'), 'changed', 'bob is an owner now');
      assert.equal(await storage.team.setRole(shop, bob, 'developer'), 'last_owner');
      assert.equal(await storage.team.setRole(shop, ann, 'owner'), 'changed');
      await storage.users.disable(ann, LATER);
      assert.equal(await storage.team.setRole(shop, bob, 'developer'), 'last_owner', 'a disabled owner does not count');
      assert.equal(await storage.team.removeMember(shop, bob), 'last_owner');
      assert.equal(await storage.team.setRole(shop, ann, 'viewer'), 'changed', 'the disabled owner may be demoted');
      assert.deepEqual(
        (await storage.team.listMembers(shop)).map((member) => member.role),
        ['viewer', 'owner'],
      );
    });

    test('when two owners demote each other at the same time, then one change is made and the account keeps an owner', async (t) => {
      const { storage, shop, ann, bob } = await setUp(t);
      assert.equal(await storage.team.setRole(shop, bob, 'owner'), 'changed');
      const outcomes = await Promise.all([storage.team.setRole(shop, ann, 'developer'), storage.team.setRole(shop, bob, 'developer'), storage.team.removeMember(shop, ann), storage.team.removeMember(shop, bob)]);
      assert.ok(outcomes.includes('last_owner'), `some change was refused: ${outcomes.join(', ')}`);
      const owners = (await storage.team.listMembers(shop)).filter((member) => member.role === 'owner');
      assert.equal(owners.length, 1);
    });

    test('when a member is removed, then they are no longer listed, their sessions in that account end and others stay, and the last owner stays', async (t) => {
      const { storage, shop, other, ann, bob, cat } = await setUp(t);
      assert.equal(await storage.team.removeMember(shop, ann), 'last_owner');
      assert.equal(await storage.team.removeMember(shop, cat), 'not_member');
      // bob also belongs to the other store, with a session in each.
      await storage.team.createInvitation({ tokenHash: hashOf(90), accountId: other, role: 'viewer', createdAt: AT, expiresAt: END });
      assert.ok(await storage.team.acceptInvitation(hashOf(90), AT, bob));
      assert.equal(await startSession(storage, 1, bob), shop, 'the user’s own account');
      assert.equal(await startSession(storage, 2, bob, other), other);
      assert.equal(await storage.team.removeMember(shop, bob), 'changed');
      assert.equal(await storage.sessions.find(hashOf(1)), undefined, 'the session in the store bob left ended');
      assert.equal((await storage.sessions.find(hashOf(2)))?.user.accountId, other, 'the session in the other store stays');
      assert.deepEqual((await storage.team.listMembers(shop)).map((member) => member.userId), [ann]);
      assert.equal(await storage.team.removeMember(shop, bob), 'not_member');
    });

    test('when sessions start, then they work in the user’s own account or the one asked for, carry the role there, switch only to an account of the user’s, and none starts for a user of no account', async (t) => {
      const { storage, shop, other, ann, bob } = await setUp(t);
      assert.equal(await startSession(storage, 1, bob), shop);
      const record = await storage.sessions.find(hashOf(1));
      assert.equal(record?.user.accountId, shop);
      assert.equal(record?.role, 'developer');
      assert.equal(record?.accountName, 'Main Street Pets');
      assert.equal(await startSession(storage, 2, bob, other), undefined, 'not a member of the other store');
      assert.equal(await storage.sessions.switchAccount(hashOf(1), bob, other), false);
      await storage.team.createInvitation({ tokenHash: hashOf(91), accountId: other, role: 'viewer', createdAt: AT, expiresAt: END });
      assert.ok(await storage.team.acceptInvitation(hashOf(91), AT, bob));
      assert.equal(await storage.sessions.switchAccount(hashOf(1), ann, other), false, 'another user’s session');
      assert.equal(await storage.sessions.switchAccount(hashOf(1), bob, other), true);
      const switched = await storage.sessions.find(hashOf(1));
      assert.equal(switched?.user.accountId, other);
      assert.equal(switched?.role, 'viewer');
      assert.equal(switched?.accountName, 'Harbour Pets');
      assert.equal(await storage.team.removeMember(shop, bob), 'changed');
      assert.equal(await storage.team.removeMember(other, bob), 'changed');
      assert.equal(await storage.sessions.find(hashOf(1)), undefined);
      assert.equal(await startSession(storage, 3, bob), undefined, 'bob belongs to no account');
    });

    test('when an invitation is made, then its mail is queued with it, it is pending until accepted, revoked or expired, and listed for its account only', async (t) => {
      const { storage, shop, other, ann, cat } = await setUp(t);
      const mail: NewMail = { id: 'm-invite', kind: 'invitation', recipient: 'dan@example.com', subject: 'Invited', sealedBody: 'v1.sealed', accountId: shop, createdAt: AT };
      const mailed = await storage.team.createInvitation({ tokenHash: hashOf(1), accountId: shop, email: 'dan@example.com', role: 'viewer', invitedBy: ann, createdAt: AT, expiresAt: END }, mail);
      assert.deepEqual(mailed, { id: mailed.id, accountId: shop, email: 'dan@example.com', role: 'viewer', invitedBy: ann, createdAt: AT, expiresAt: END });
      assert.equal((await storage.mail.find('m-invite'))?.recipient, 'dan@example.com');
      const link = await storage.team.createInvitation({ tokenHash: hashOf(2), accountId: shop, role: 'owner', createdAt: AT, expiresAt: END });
      assert.deepEqual(link, { id: link.id, accountId: shop, role: 'owner', createdAt: AT, expiresAt: END });
      assert.deepEqual(await storage.team.listInvitations(shop, AT), [mailed, link]);
      assert.deepEqual(await storage.team.listInvitations(other, AT), []);
      assert.deepEqual(await storage.team.listInvitations(shop, END), [], 'expired at expiresAt');
      assert.deepEqual(await storage.team.peekInvitation(hashOf(1), AT), mailed);
      assert.equal(await storage.team.peekInvitation(hashOf(1), END), undefined);

      assert.equal(await storage.team.revokeInvitation(other, mailed.id, AT), undefined, 'another account’s invitation is not found');
      assert.deepEqual(await storage.team.revokeInvitation(shop, mailed.id, AT), mailed);
      assert.equal(await storage.team.revokeInvitation(shop, mailed.id, AT), undefined, 'revoked once');
      assert.equal(await storage.team.peekInvitation(hashOf(1), AT), undefined);
      assert.equal(await storage.team.acceptInvitation(hashOf(1), AT, cat), undefined, 'a revoked invitation is not accepted');
      assert.deepEqual(await storage.team.listInvitations(shop, AT), [link]);
    });

    test('when an invitation is accepted, then it is used once, an existing user joins with its role, and a member already there leaves it pending', async (t) => {
      const { storage, shop, other, bob, cat } = await setUp(t);
      const invitation = await storage.team.createInvitation({ tokenHash: hashOf(1), accountId: shop, role: 'viewer', createdAt: AT, expiresAt: END });
      assert.equal(await storage.team.acceptInvitation(hashOf(1), AT, bob), 'already_member');
      assert.deepEqual(await storage.team.peekInvitation(hashOf(1), AT), invitation, 'still pending');
      const [first, second] = await Promise.all([storage.team.acceptInvitation(hashOf(1), AT, cat), storage.team.acceptInvitation(hashOf(1), AT, cat)]);
      assert.deepEqual([first, second].filter((outcome) => outcome !== undefined), [invitation], 'one of two concurrent uses gets it');
      assert.deepEqual(await storage.team.listMemberships(cat), [
        { accountId: shop, accountName: 'Main Street Pets', role: 'viewer' },
        { accountId: other, accountName: 'Harbour Pets', role: 'owner' },
      ]);
      assert.equal(await storage.team.acceptInvitation(hashOf(1), AT, cat), undefined, 'used');

      await storage.team.createInvitation({ tokenHash: hashOf(2), accountId: shop, role: 'developer', createdAt: AT, expiresAt: END });
      assert.equal(await storage.team.acceptInvitation(hashOf(2), END, cat), undefined, 'expired');
    });

    test('when a sign-up uses an invitation, then the user is created into its account with its role and the link used, in one transaction; of two concurrent sign-ups exactly one succeeds, and a failed one leaves the link usable', async (t) => {
      const { storage, shop, other } = await setUp(t);
      const newUser = (email: string) => ({ email, passwordHash: 'h', createdAt: LATER });
      const invitation = await storage.team.createInvitation({ tokenHash: hashOf(1), accountId: shop, role: 'developer', createdAt: AT, expiresAt: END });

      assert.equal(await storage.users.createInvited(hashOf(1), LATER, newUser('bob@example.com')), 'email_taken', 'a user has that email');
      assert.deepEqual(await storage.team.peekInvitation(hashOf(1), LATER), invitation, 'the failed sign-up left the link usable');
      assert.equal(await storage.users.createInvited(hashOf(99), LATER, newUser('dan@example.com')), 'invitation_invalid');
      assert.equal(await storage.users.createInvited(hashOf(1), END, newUser('dan@example.com')), 'invitation_invalid', 'expired');
      assert.equal(await storage.users.findByEmail('dan@example.com'), undefined, 'no user without the link');

      // Two browsers race with one link: the same address, then two addresses.
      const sameEmail = await Promise.all([storage.users.createInvited(hashOf(1), LATER, newUser('dan@example.com')), storage.users.createInvited(hashOf(1), LATER, newUser('dan@example.com'))]);
      const created = sameEmail.filter((outcome) => typeof outcome === 'object');
      assert.equal(created.length, 1, `exactly one sign-up succeeds: ${JSON.stringify(sameEmail)}`);
      assert.ok(sameEmail.some((outcome) => outcome === 'invitation_invalid' || outcome === 'email_taken'));
      const [dan] = created;
      assert.ok(dan !== undefined);
      assert.deepEqual(dan.invitation, invitation);
      assert.deepEqual(await storage.users.findByEmail('dan@example.com'), { ...dan.user, passwordHash: 'h' });
      assert.deepEqual(await storage.team.listMemberships(dan.user.id), [{ accountId: shop, accountName: 'Main Street Pets', role: 'developer' }]);
      assert.equal(await storage.team.peekInvitation(hashOf(1), LATER), undefined, 'used');
      assert.equal(await storage.users.createInvited(hashOf(1), LATER, newUser('eve@example.com')), 'invitation_invalid', 'used once');

      await storage.team.createInvitation({ tokenHash: hashOf(2), accountId: other, role: 'viewer', createdAt: AT, expiresAt: END });
      const twoEmails = await Promise.all([storage.users.createInvited(hashOf(2), LATER, newUser('eve@example.com')), storage.users.createInvited(hashOf(2), LATER, newUser('fay@example.com'))]);
      assert.deepEqual(twoEmails.map((outcome) => (typeof outcome === 'object' ? 'created' : outcome)).sort(), ['created', 'invitation_invalid']);
      const members = (await storage.team.listMembers(other)).map((member) => member.email);
      assert.equal(members.length, 2, `one user joined: ${members.join(', ')}`);
      assert.equal([await storage.users.findByEmail('eve@example.com'), await storage.users.findByEmail('fay@example.com')].filter((user) => user !== undefined).length, 1, 'the loser has no user');
    });
  });
}
