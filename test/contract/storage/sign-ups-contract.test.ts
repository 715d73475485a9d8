/**
 * The pending sign-ups part of the storage contract (issue 27, sign-up that
 * does not reveal who has an account): a sign-up and its mail written
 * together, one per address, and a link that creates the account, its
 * verified owner and their membership at once, once. The same cases on
 * every adapter.
 */
import assert from 'node:assert/strict';
import { describe, test, type TestContext } from 'node:test';
import type { NewMail } from '../../../src/mail/mail-repository.js';
import type { Storage } from '../../../src/storage/storage.js';
import type { NewPendingSignUp } from '../../../src/users/sign-up/sign-ups-repository.js';
import { readSql } from '../../support/raw-sql.js';
import { isoPlus, type ContractCoverage } from '../../support/storage-contract.js';
import { storageBackends } from '../../support/storage.js';

export const CONTRACT_COVERS = {
  signUps: ['start', 'peek', 'complete'],
} as const satisfies ContractCoverage;

const AT = '2026-11-22T10:00:00.000Z';
const DAY_MS = 24 * 3_600_000;
const hashOf = (n: number) => n.toString(16).padStart(64, '0');

function pending(n: number, fields: Partial<NewPendingSignUp> = {}): NewPendingSignUp {
  return { tokenHash: hashOf(n), email: 'ann@example.com', passwordHash: `$argon2id$${n}`, storeName: 'Main Street Pets', createdAt: AT, expiresAt: isoPlus(AT, DAY_MS), ...fields };
}

function mail(id: string, to = 'ann@example.com'): NewMail {
  return { id, kind: 'sign-up-confirmation', recipient: to, subject: 'Finish creating your Store Orders account', sealedBody: `v1.sealed-${id}`, createdAt: AT };
}

for (const backend of storageBackends({ postgresDirect: true })) {
  describe(`pending sign-ups storage: ${backend.name}`, () => {
    async function setUp(t: TestContext): Promise<{ storage: Storage; count: (table: string) => Promise<number> }> {
      const { storage, config } = await backend.freshDatabase(t);
      const count = async (table: string) => Number((await readSql(config, `SELECT count(*) AS n FROM ${table}`))[0]?.n);
      return { storage, count };
    }

    test('when a sign-up is started, then it is pending with its mail queued, peeked by its hash until it expires, and a second one of the address replaces it', async (t) => {
      const { storage, count } = await setUp(t);
      await storage.signUps.start(pending(1), mail('m1'));
      const first = { email: 'ann@example.com', passwordHash: '$argon2id$1', storeName: 'Main Street Pets', createdAt: AT, expiresAt: isoPlus(AT, DAY_MS) };
      assert.deepEqual(await storage.signUps.peek(hashOf(1), AT), first);
      assert.equal((await storage.mail.find('m1'))?.status, 'pending', 'its mail is queued');
      assert.equal(await storage.signUps.peek(hashOf(2), AT), undefined, 'an unknown hash');
      assert.equal(await storage.signUps.peek(hashOf(1), isoPlus(AT, DAY_MS)), undefined, 'expired');

      await storage.signUps.start(pending(2, { passwordHash: 'newer', storeName: 'Harbour Pets', createdAt: isoPlus(AT, 1000) }), mail('m2'));
      assert.equal(await storage.signUps.peek(hashOf(1), AT), undefined, 'the earlier link stops working');
      assert.deepEqual(await storage.signUps.peek(hashOf(2), isoPlus(AT, 1000)), { ...first, passwordHash: 'newer', storeName: 'Harbour Pets', createdAt: isoPlus(AT, 1000) });
      assert.equal(await count('sign_ups'), 1, 'one pending sign-up per address');
      assert.equal(await count('mail'), 2);

      // Another address's sign-up a day later deletes the expired one on the way.
      await storage.signUps.start(pending(3, { email: 'bob@example.com', createdAt: isoPlus(AT, 2 * DAY_MS), expiresAt: isoPlus(AT, 3 * DAY_MS) }), mail('m3', 'bob@example.com'));
      assert.equal(await count('sign_ups'), 1, 'the expired sign-up is gone');
    });

    test('when a sign-up’s mail cannot be queued, then the sign-up is not stored either (one transaction)', async (t) => {
      const { storage, count } = await setUp(t);
      await storage.signUps.start(pending(1), mail('m1'));
      await assert.rejects(storage.signUps.start(pending(2, { email: 'bob@example.com' }), mail('m1', 'bob@example.com')), 'a mail id already taken fails the insert');
      assert.equal(await storage.signUps.peek(hashOf(2), AT), undefined);
      assert.equal(await count('sign_ups'), 1);
    });

    test('when a pending sign-up is completed, then its account, its verified owner and their membership exist, and the link is used up', async (t) => {
      const { storage, count } = await setUp(t);
      await storage.signUps.start(pending(1), mail('m1'));
      const now = isoPlus(AT, 60_000);
      const completed = await storage.signUps.complete(hashOf(1), now);
      assert.ok(completed !== undefined && completed !== 'email_taken');
      assert.equal(completed.storeName, 'Main Street Pets');
      const { user } = completed;
      assert.deepEqual(user, { id: user.id, accountId: user.accountId, email: 'ann@example.com', createdAt: now, emailVerifiedAt: now });
      assert.deepEqual(await storage.accounts.findById(user.accountId), { id: user.accountId, name: 'Main Street Pets', createdAt: now });
      assert.equal((await storage.users.findByEmail('ann@example.com'))?.passwordHash, '$argon2id$1', 'the password chosen on the form');
      assert.deepEqual(
        (await storage.team.listMemberships(user.id)).map((membership) => [membership.accountId, membership.role]),
        [[user.accountId, 'owner']],
      );
      assert.equal(await storage.signUps.peek(hashOf(1), now), undefined);
      assert.equal(await storage.signUps.complete(hashOf(1), now), undefined, 'once');
      assert.deepEqual([await count('accounts'), await count('users')], [1, 1]);
    });

    test('when a link is expired or unknown, then completing it creates nothing', async (t) => {
      const { storage, count } = await setUp(t);
      await storage.signUps.start(pending(1), mail('m1'));
      assert.equal(await storage.signUps.complete(hashOf(1), isoPlus(AT, DAY_MS)), undefined);
      assert.equal(await storage.signUps.complete(hashOf(9), AT), undefined);
      assert.deepEqual([await count('accounts'), await count('users')], [0, 0]);
    });

    test('when the address has a user by the time the link is followed, then it is email_taken, nothing is created and the link is used up', async (t) => {
      const { storage, count } = await setUp(t);
      await storage.signUps.start(pending(1), mail('m1'));
      const account = await storage.accounts.create({ name: 'Elsewhere', createdAt: AT });
      await storage.users.create({ accountId: account.id, role: 'owner', email: 'ann@example.com', passwordHash: 'h', createdAt: AT });
      assert.equal(await storage.signUps.complete(hashOf(1), AT), 'email_taken');
      assert.deepEqual([await count('accounts'), await count('users'), await count('memberships')], [1, 1, 1]);
      assert.equal(await storage.signUps.peek(hashOf(1), AT), undefined);
    });

    test('when one link is completed twice at once, then exactly one user and one account are created', async (t) => {
      const { storage, count } = await setUp(t);
      await storage.signUps.start(pending(1), mail('m1'));
      const results = await Promise.all([storage.signUps.complete(hashOf(1), AT), storage.signUps.complete(hashOf(1), AT)]);
      assert.equal(results.filter((result) => typeof result === 'object').length, 1, JSON.stringify(results));
      assert.equal(results.filter((result) => result === undefined).length, 1);
      assert.deepEqual([await count('accounts'), await count('users'), await count('memberships')], [1, 1, 1]);
    });
  });
}
