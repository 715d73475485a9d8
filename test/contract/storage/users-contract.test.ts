/** The portal users and sessions part of the storage contract: the same cases on every adapter. */
import assert from 'node:assert/strict';
import { describe, test, type TestContext } from 'node:test';
import type { NewMail } from '../../../src/mail/mail-repository.js';
import type { Storage } from '../../../src/storage/storage.js';
import { isoPlus, rejectsWithCode, type ContractCoverage } from '../../support/storage-contract.js';
import { storageBackends } from '../../support/storage.js';

export const CONTRACT_COVERS = {
  users: ['create', 'findByEmail', 'findById', 'list', 'setPasswordHash', 'disable', 'createToken', 'createTokenWithMail', 'peekToken', 'consumeToken', 'usePasswordReset', 'useEmailToken'],
  sessions: ['create', 'find', 'touch', 'delete', 'deleteForUser'],
} as const satisfies ContractCoverage;

const AT = '2026-11-22T10:00:00.000Z';
const hashOf = (n: number) => n.toString(16).padStart(64, '0');
/** What the Sessions list shows of session n (its handle is unrelated to its id). */
const sessionClient = (n: number) => ({ handle: n.toString(16).padStart(32, 'a'), device: 'Firefox on Linux', address: '192.0.2.1' });

for (const backend of storageBackends({ postgresDirect: true })) {
  describe(`users and sessions storage: ${backend.name}`, () => {
    async function setUp(t: TestContext): Promise<{ storage: Storage; accountId: number }> {
      const { storage } = await backend.freshDatabase(t);
      const account = await storage.accounts.create({ name: 'Main Street Pets', createdAt: AT });
      return { storage, accountId: account.id };
    }

    test('when a user is created, then it is found by email and id with its hash, listed without it, and a second user with that email is email_taken', async (t) => {
      const { storage, accountId } = await setUp(t);
      const created = await storage.users.create({ accountId, role: 'owner', email: 'ann@example.com', passwordHash: '$argon2id$x', createdAt: AT });
      assert.notEqual(created, 'email_taken');
      if (created === 'email_taken') return;
      assert.deepEqual(created, { id: created.id, accountId, email: 'ann@example.com', createdAt: AT });
      assert.deepEqual(await storage.users.findByEmail('ann@example.com'), { ...created, passwordHash: '$argon2id$x' });
      assert.deepEqual(await storage.users.findById(created.id), { ...created, passwordHash: '$argon2id$x' });
      assert.equal(await storage.users.findByEmail('bob@example.com'), undefined);
      assert.equal(await storage.users.findById(created.id + 1000), undefined);
      assert.equal(await storage.users.create({ accountId, role: 'owner', email: 'ann@example.com', passwordHash: 'h', createdAt: AT }), 'email_taken');
      const second = await storage.users.create({ accountId, role: 'owner', email: 'bob@example.com', passwordHash: 'h', createdAt: AT });
      assert.deepEqual(await storage.users.list(), [created, second]);
      await assert.rejects(storage.users.create({ accountId: 999_999, role: 'owner', email: 'c@example.com', passwordHash: 'h', createdAt: AT }), rejectsWithCode('account_not_found'));
    });

    test('when a password hash is set or a user disabled, then reads show it, disabling twice keeps the first time, and disabling ends every session of the user', async (t) => {
      const { storage, accountId } = await setUp(t);
      const user = await storage.users.create({ accountId, role: 'owner', email: 'ann@example.com', passwordHash: 'old', createdAt: AT });
      const other = await storage.users.create({ accountId, role: 'owner', email: 'bob@example.com', passwordHash: 'h', createdAt: AT });
      if (user === 'email_taken' || other === 'email_taken') throw new Error('unexpected');
      assert.equal(await storage.users.setPasswordHash(user.id, 'new'), true);
      assert.equal((await storage.users.findById(user.id))?.passwordHash, 'new');
      assert.equal(await storage.users.setPasswordHash(999_999, 'new'), false);
      await storage.sessions.create({ idHash: hashOf(1), userId: user.id, createdAt: AT, expiresAt: isoPlus(AT, 3_600_000), ...sessionClient(1) });
      await storage.sessions.create({ idHash: hashOf(2), userId: other.id, createdAt: AT, expiresAt: isoPlus(AT, 3_600_000), ...sessionClient(2) });
      assert.equal(await storage.users.disable(user.id, isoPlus(AT, 1000)), true);
      assert.equal(await storage.users.disable(user.id, isoPlus(AT, 2000)), true);
      assert.equal((await storage.users.findById(user.id))?.disabledAt, isoPlus(AT, 1000));
      assert.equal(await storage.sessions.find(hashOf(1)), undefined);
      assert.notEqual(await storage.sessions.find(hashOf(2)), undefined);
      assert.equal(await storage.users.disable(999_999, AT), false);
    });

    test('when one-time tokens are used, then a valid one is granted once, and an expired, used or other-kind one never', async (t) => {
      const { storage, accountId } = await setUp(t);
      const user = await storage.users.create({ accountId, role: 'owner', email: 'ann@example.com', passwordHash: 'h', createdAt: AT });
      if (user === 'email_taken') throw new Error('unexpected');
      const later = isoPlus(AT, 3_600_000);
      await storage.users.createToken({ hash: hashOf(10), kind: 'verify-email', userId: user.id, email: 'ann@example.com', createdAt: AT, expiresAt: later });
      await storage.users.createToken({ hash: hashOf(11), kind: 'reset', userId: user.id, createdAt: AT, expiresAt: later });
      const verification = { kind: 'verify-email', origin: 'operator', userId: user.id };
      assert.deepEqual(await storage.users.peekToken(hashOf(10), 'verify-email', AT), verification);
      assert.equal(await storage.users.peekToken(hashOf(10), 'reset', AT), undefined);
      assert.equal(await storage.users.peekToken(hashOf(10), 'verify-email', later), undefined, 'expired at expiresAt');
      assert.deepEqual(await storage.users.consumeToken(hashOf(10), 'verify-email', AT), verification);
      assert.equal(await storage.users.consumeToken(hashOf(10), 'verify-email', AT), undefined, 'used once');
      assert.equal(await storage.users.peekToken(hashOf(10), 'verify-email', AT), undefined);
      assert.equal(await storage.users.consumeToken(hashOf(11), 'reset', later), undefined, 'expired');
      const both = await Promise.all([storage.users.consumeToken(hashOf(11), 'reset', AT), storage.users.consumeToken(hashOf(11), 'reset', AT)]);
      assert.deepEqual(
        both.filter((grant) => grant !== undefined),
        [{ kind: 'reset', origin: 'operator', userId: user.id }],
        'of two concurrent uses, one is granted',
      );
      assert.equal(await storage.users.consumeToken(hashOf(12), 'reset', AT), undefined);
    });

    test('when a reset token is used or a password set, then it happens once, atomically, and every other outstanding reset token of that user is dead, not another user\'s', async (t) => {
      const { storage, accountId } = await setUp(t);
      const ann = await storage.users.create({ accountId, role: 'owner', email: 'ann@example.com', passwordHash: 'old', createdAt: AT });
      const bob = await storage.users.create({ accountId, role: 'owner', email: 'bob@example.com', passwordHash: 'bob', createdAt: AT });
      if (ann === 'email_taken' || bob === 'email_taken') throw new Error('unexpected');
      const later = isoPlus(AT, 3_600_000);
      const reset = (n: number, userId: number) => storage.users.createToken({ hash: hashOf(n), kind: 'reset', userId, createdAt: AT, expiresAt: later });
      for (const n of [20, 21, 22]) await reset(n, ann.id);
      await reset(30, bob.id);
      await storage.users.createToken({ hash: hashOf(40), kind: 'verify-email', userId: ann.id, email: 'ann@example.com', createdAt: AT, expiresAt: later });

      assert.equal(await storage.users.usePasswordReset(hashOf(40), 'x', AT), undefined, 'a verification link is not a reset');
      assert.equal(await storage.users.usePasswordReset(hashOf(21), 'x', later), undefined, 'expired');
      assert.equal((await storage.users.findById(ann.id))?.passwordHash, 'old', 'a refused use changes nothing');
      assert.equal(await storage.users.usePasswordReset(hashOf(22), 'newer', AT), ann.id);
      assert.equal((await storage.users.findById(ann.id))?.passwordHash, 'newer');
      for (const n of [20, 21, 22]) assert.equal(await storage.users.peekToken(hashOf(n), 'reset', AT), undefined, `ann's link ${n}`);
      assert.equal(await storage.users.usePasswordReset(hashOf(20), 'older', AT), undefined, 'an older link is dead once a newer one was used');
      assert.equal((await storage.users.findById(ann.id))?.passwordHash, 'newer');
      assert.deepEqual(await storage.users.peekToken(hashOf(30), 'reset', AT), { kind: 'reset', origin: 'operator', userId: bob.id }, 'another user\'s link lives');
      assert.deepEqual(await storage.users.peekToken(hashOf(40), 'verify-email', AT), { kind: 'verify-email', origin: 'operator', userId: ann.id }, 'verification links are untouched');

      // A password set any other way (the settings page) kills the outstanding links too.
      await reset(23, ann.id);
      assert.equal(await storage.users.setPasswordHash(ann.id, 'changed'), true);
      assert.equal(await storage.users.peekToken(hashOf(23), 'reset', AT), undefined);
      assert.notEqual(await storage.users.peekToken(hashOf(30), 'reset', AT), undefined);

      // Two links of one user used at once: exactly one sets the password.
      for (const n of [24, 25]) await reset(n, ann.id);
      const both = await Promise.all([storage.users.usePasswordReset(hashOf(24), 'first', AT), storage.users.usePasswordReset(hashOf(25), 'second', AT)]);
      assert.deepEqual(both.filter((userId) => userId !== undefined), [ann.id], 'of two concurrent uses, one wins');
      const winner = both[0] === undefined ? 'second' : 'first';
      assert.equal((await storage.users.findById(ann.id))?.passwordHash, winner);
      assert.equal(await storage.users.usePasswordReset(hashOf(30), 'bob2', AT), bob.id);
    });

    test('when a token is created with its mail, then both are stored in one transaction with its origin, and a mail that cannot be stored leaves no token', async (t) => {
      const { storage, accountId } = await setUp(t);
      const ann = await storage.users.create({ accountId, role: 'owner', email: 'ann@example.com', passwordHash: 'h', createdAt: AT });
      if (ann === 'email_taken') throw new Error('unexpected');
      const later = isoPlus(AT, 3_600_000);
      const mail = (id: string, fields: Partial<NewMail> = {}): NewMail => ({ id, kind: 'password-reset', recipient: 'ann@example.com', subject: 'Reset', sealedBody: `v1.sealed-${id}`, accountId, createdAt: AT, ...fields });
      await storage.users.createTokenWithMail({ hash: hashOf(50), kind: 'reset', userId: ann.id, origin: 'user', createdAt: AT, expiresAt: later }, mail('m-50'));
      assert.deepEqual(await storage.users.peekToken(hashOf(50), 'reset', AT), { kind: 'reset', origin: 'user', userId: ann.id });
      const queued = await storage.mail.find('m-50');
      assert.equal(queued?.status, 'pending');
      assert.equal(queued?.sealedBody, 'v1.sealed-m-50');
      // A mail whose account does not exist fails its foreign key: the token must not be left behind.
      await assert.rejects(storage.users.createTokenWithMail({ hash: hashOf(51), kind: 'reset', userId: ann.id, origin: 'user', createdAt: AT, expiresAt: later }, mail('m-51', { accountId: 999_999 })));
      assert.equal(await storage.users.peekToken(hashOf(51), 'reset', AT), undefined);
      assert.equal(await storage.mail.find('m-51'), undefined);
      // A token that cannot be stored (its hash is taken) leaves no mail.
      await assert.rejects(storage.users.createTokenWithMail({ hash: hashOf(50), kind: 'reset', userId: ann.id, origin: 'user', createdAt: AT, expiresAt: later }, mail('m-52')));
      assert.equal(await storage.mail.find('m-52'), undefined);
      assert.equal(await storage.users.usePasswordReset(hashOf(50), 'new', AT), ann.id, 'a user-made link resets like an operator\'s');
    });

    test('when sessions are created, touched and deleted, then find returns the session with its user and account name until it is deleted', async (t) => {
      const { storage, accountId } = await setUp(t);
      const user = await storage.users.create({ accountId, role: 'owner', email: 'ann@example.com', passwordHash: 'h', createdAt: AT });
      if (user === 'email_taken') throw new Error('unexpected');
      const expiresAt = isoPlus(AT, 12 * 3_600_000);
      for (const n of [1, 2, 3]) await storage.sessions.create({ idHash: hashOf(n), userId: user.id, createdAt: AT, expiresAt, ...sessionClient(n) });
      assert.deepEqual(await storage.sessions.find(hashOf(1)), { idHash: hashOf(1), createdAt: AT, lastSeenAt: AT, expiresAt, authenticatedAt: AT, user, accountName: 'Main Street Pets', role: 'owner' });
      await storage.sessions.touch(hashOf(1), isoPlus(AT, 60_000));
      await storage.sessions.touch(hashOf(1), isoPlus(AT, 30_000));
      assert.equal((await storage.sessions.find(hashOf(1)))?.lastSeenAt, isoPlus(AT, 60_000), 'never moves back');
      await storage.sessions.delete(hashOf(1));
      assert.equal(await storage.sessions.find(hashOf(1)), undefined);
      assert.equal(await storage.sessions.find(hashOf(99)), undefined);
      assert.equal(await storage.sessions.deleteForUser(user.id, hashOf(2)), 1, 'all but the one kept');
      assert.notEqual(await storage.sessions.find(hashOf(2)), undefined);
      assert.equal(await storage.sessions.find(hashOf(3)), undefined);
      assert.equal(await storage.sessions.deleteForUser(user.id), 1);
      assert.equal(await storage.sessions.find(hashOf(2)), undefined);
    });

    test('when a user is created with a verification, then its token and mail are written with it, the token verifies once, and a verify link of an old address does nothing', async (t) => {
      const { storage, accountId } = await setUp(t);
      const mail: NewMail = { id: 'm-verify', kind: 'email-verification', recipient: 'ann@example.com', subject: 'Confirm', sealedBody: 'v1.sealed', accountId, createdAt: AT };
      const user = await storage.users.create({ accountId, role: 'owner', email: 'ann@example.com', passwordHash: 'h', createdAt: AT }, { hash: hashOf(30), createdAt: AT, expiresAt: isoPlus(AT, 3_600_000), mail });
      if (user === 'email_taken') throw new Error('unexpected');
      assert.equal(user.emailVerifiedAt, undefined);
      assert.equal((await storage.mail.find('m-verify'))?.recipient, 'ann@example.com');
      assert.equal(await storage.users.useEmailToken(hashOf(30), isoPlus(AT, 3_600_000)), undefined, 'expired at expiresAt');
      assert.deepEqual(await storage.users.useEmailToken(hashOf(30), isoPlus(AT, 1000)), { kind: 'verify-email', userId: user.id, accountId, email: 'ann@example.com' });
      assert.equal((await storage.users.findById(user.id))?.emailVerifiedAt, isoPlus(AT, 1000));
      assert.equal(await storage.users.useEmailToken(hashOf(30), isoPlus(AT, 2000)), undefined, 'used once');
      const taken = await storage.users.create({ accountId, role: 'owner', email: 'ann@example.com', passwordHash: 'h', createdAt: AT }, { hash: hashOf(31), createdAt: AT, expiresAt: isoPlus(AT, 1000), mail: { ...mail, id: 'm-2' } });
      assert.equal(taken, 'email_taken');
      assert.equal(await storage.mail.find('m-2'), undefined, 'nothing of a refused user is written');
      await storage.users.createToken({ hash: hashOf(32), kind: 'verify-email', userId: user.id, email: 'old@example.com', createdAt: AT, expiresAt: isoPlus(AT, 3_600_000) });
      assert.equal(await storage.users.useEmailToken(hashOf(32), AT), undefined, 'a link to an address the user no longer has verifies nothing');
    });

    test('when a change-email token is used, then the address changes and is verified, the other outstanding links of the user die, and an address taken by then changes nothing', async (t) => {
      const { storage, accountId } = await setUp(t);
      const user = await storage.users.create({ accountId, role: 'owner', email: 'ann@example.com', passwordHash: 'h', createdAt: AT });
      const other = await storage.users.create({ accountId, role: 'owner', email: 'bob@example.com', passwordHash: 'h', createdAt: AT });
      if (user === 'email_taken' || other === 'email_taken') throw new Error('unexpected');
      const later = isoPlus(AT, 3_600_000);
      await storage.users.createTokenWithMail({ hash: hashOf(40), kind: 'change-email', origin: 'user', userId: user.id, email: 'bob@example.com', createdAt: AT, expiresAt: later }, [
        { id: 'm-link', kind: 'email-verification', recipient: 'bob@example.com', subject: 'Confirm', sealedBody: 'v1.a', accountId, createdAt: AT },
        { id: 'm-notice', kind: 'email-change-notice', recipient: 'ann@example.com', subject: 'Changing', sealedBody: 'v1.b', accountId, createdAt: AT },
      ]);
      assert.notEqual(await storage.mail.find('m-link'), undefined);
      assert.notEqual(await storage.mail.find('m-notice'), undefined);
      assert.equal(await storage.users.useEmailToken(hashOf(40), AT), 'email_taken');
      assert.equal((await storage.users.findById(user.id))?.email, 'ann@example.com', 'nothing changed');
      await storage.users.createToken({ hash: hashOf(41), kind: 'change-email', userId: user.id, email: 'ann.new@example.com', createdAt: AT, expiresAt: later });
      await storage.users.createToken({ hash: hashOf(42), kind: 'reset', userId: user.id, createdAt: AT, expiresAt: later });
      assert.deepEqual(await storage.users.useEmailToken(hashOf(41), AT), {
        kind: 'change-email',
        userId: user.id,
        accountId,
        email: 'ann.new@example.com',
        previousEmail: 'ann@example.com',
      });
      const changed = await storage.users.findById(user.id);
      assert.equal(changed?.email, 'ann.new@example.com');
      assert.equal(changed?.emailVerifiedAt, AT);
      assert.equal(await storage.users.findByEmail('ann@example.com'), undefined);
      assert.equal(await storage.users.peekToken(hashOf(42), 'reset', AT), undefined, 'a reset link mailed to the old address dies');
      assert.equal(await storage.users.useEmailToken(hashOf(40), AT), undefined, 'so does the other change');
    });
  });
}
