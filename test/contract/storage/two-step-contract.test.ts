/**
 * The two-step sign-in part of the storage contract: a user's authenticator
 * app (set up, confirmed by a first code, each time step's code accepted
 * once), their one-time recovery codes and the sign-ins waiting for a code.
 * Races go through two handles on one database, as two processes would.
 * The same cases on every adapter.
 */
import assert from 'node:assert/strict';
import { describe, test, type TestContext } from 'node:test';
import type { DatabaseConfig } from '../../../src/config/config.js';
import { openStorage } from '../../../src/storage/open-storage.js';
import type { Storage } from '../../../src/storage/storage.js';
import { readSql, runSql } from '../../support/raw-sql.js';
import { isoPlus, type ContractCoverage } from '../../support/storage-contract.js';
import { storageBackends } from '../../support/storage.js';

export const CONTRACT_COVERS = {
  twoStep: [
    'begin',
    'find',
    'confirm',
    'useStep',
    'useRecoveryCode',
    'unusedRecoveryCodes',
    'replaceRecoveryCodes',
    'remove',
    'createPendingSignIn',
    'findPendingSignIn',
    'consumePendingSignIn',
    'endPendingSignIns',
  ],
} as const satisfies ContractCoverage;

const AT = '2026-11-22T10:00:00.000Z';
const at = (ms: number) => isoPlus(AT, ms);
const MINUTE_MS = 60_000;
/** A time step near AT (Unix seconds / 30). */
const STEP = 59_378_400;
const hashOf = (n: number) => n.toString(16).padStart(64, '0');
/** A recovery code's hash as the service would store it (any text to storage). */
const code = (n: number) => `recovery-code-hash-${n}`;
const codes = (...ns: number[]) => ns.map(code);

interface SetUp {
  storage: Storage;
  /** A second handle on the same database: another process. */
  other: Storage;
  config: DatabaseConfig;
  userId: number;
  otherId: number;
  /** The rows of `table` that belong to `userId`, whatever their state. */
  rowsOf: (table: 'user_authenticators' | 'user_recovery_codes' | 'pending_sign_ins', userId: number) => Promise<number>;
}

for (const backend of storageBackends({ postgresDirect: true })) {
  describe(`two-step sign-in storage: ${backend.name}`, () => {
    async function setUp(t: TestContext): Promise<SetUp> {
      const { storage, config } = await backend.freshDatabase(t);
      const other = openStorage(config);
      t.after(() => other.close());
      const account = await storage.accounts.create({ name: 'Main Street Pets', createdAt: AT });
      const user = await storage.users.create({ accountId: account.id, role: 'owner', email: 'ann@example.com', passwordHash: 'h', createdAt: AT });
      const second = await storage.users.create({ accountId: account.id, role: 'owner', email: 'bob@example.com', passwordHash: 'h', createdAt: AT });
      assert.ok(user !== 'email_taken' && second !== 'email_taken');
      const rowsOf: SetUp['rowsOf'] = async (table, userId) => Number((await readSql(config, `SELECT count(*) AS n FROM ${table} WHERE user_id = ${userId}`))[0]?.n);
      return { storage, other, config, userId: user.id, otherId: second.id, rowsOf };
    }

    /** Sets up and confirms `userId`'s authenticator at STEP with `hashes` as its recovery codes. */
    async function turnOn(storage: Storage, userId: number, hashes: readonly string[]): Promise<void> {
      assert.equal(await storage.twoStep.begin(userId, `v1.sealed-${userId}`, AT), 'started');
      assert.equal(await storage.twoStep.confirm(userId, STEP, hashes, at(1000)), true);
    }

    test('when a set-up begins, then it is found unconfirmed at step 0, begins again with a new secret, and a confirmed one is already_on and left as it is', async (t) => {
      const { storage, userId, otherId } = await setUp(t);
      assert.equal(await storage.twoStep.find(userId), undefined);
      assert.equal(await storage.twoStep.begin(userId, 'v1.first', AT), 'started');
      assert.deepEqual(await storage.twoStep.find(userId), { userId, sealedSecret: 'v1.first', lastStep: 0, createdAt: AT });
      assert.equal(await storage.twoStep.begin(userId, 'v1.second', at(MINUTE_MS)), 'started');
      assert.deepEqual(await storage.twoStep.find(userId), { userId, sealedSecret: 'v1.second', lastStep: 0, createdAt: at(MINUTE_MS) });
      assert.equal(await storage.twoStep.find(otherId), undefined, 'another user has none');

      assert.equal(await storage.twoStep.confirm(userId, STEP, codes(1), at(2 * MINUTE_MS)), true);
      const confirmed = { userId, sealedSecret: 'v1.second', confirmedAt: at(2 * MINUTE_MS), lastStep: STEP, createdAt: at(MINUTE_MS) };
      assert.deepEqual(await storage.twoStep.find(userId), confirmed);
      assert.equal(await storage.twoStep.begin(userId, 'v1.third', at(3 * MINUTE_MS)), 'already_on');
      assert.deepEqual(await storage.twoStep.find(userId), confirmed);
    });

    test('when a set-up is confirmed, then only an unconfirmed one with a step above its last is, with its recovery codes, once', async (t) => {
      const { storage, userId, otherId } = await setUp(t);
      assert.equal(await storage.twoStep.confirm(userId, STEP, codes(1), AT), false, 'no set-up');
      await storage.twoStep.begin(userId, 'v1.secret', AT);
      assert.equal(await storage.twoStep.confirm(userId, 0, codes(1), AT), false, 'a step not above the last (0)');
      assert.equal((await storage.twoStep.find(userId))?.confirmedAt, undefined);
      assert.equal(await storage.twoStep.unusedRecoveryCodes(userId), 0);

      assert.equal(await storage.twoStep.confirm(userId, STEP, codes(1, 2, 3), at(1000)), true);
      assert.equal(await storage.twoStep.unusedRecoveryCodes(userId), 3);
      assert.equal(await storage.twoStep.confirm(userId, STEP + 1, codes(4), at(2000)), false, 'already confirmed');
      assert.deepEqual(await storage.twoStep.find(userId), { userId, sealedSecret: 'v1.secret', confirmedAt: at(1000), lastStep: STEP, createdAt: AT });
      assert.equal(await storage.twoStep.useRecoveryCode(userId, code(4), at(3000)), false, 'the refused confirmation stored no code');
      assert.equal(await storage.twoStep.unusedRecoveryCodes(otherId), 0);
    });

    test('when two confirmations race on two handles, then exactly one confirms and its step and codes are the ones stored', async (t) => {
      const { storage, other, userId } = await setUp(t);
      await storage.twoStep.begin(userId, 'v1.secret', AT);
      const results = await Promise.all([
        storage.twoStep.confirm(userId, STEP, codes(1, 2), at(1000)),
        other.twoStep.confirm(userId, STEP + 1, codes(3, 4, 5), at(2000)),
      ]);
      assert.deepEqual([...results].sort(), [false, true]);
      const won = results[0] ? { step: STEP, count: 2, at: at(1000) } : { step: STEP + 1, count: 3, at: at(2000) };
      const found = await storage.twoStep.find(userId);
      assert.equal(found?.lastStep, won.step);
      assert.equal(found?.confirmedAt, won.at);
      assert.equal(await storage.twoStep.unusedRecoveryCodes(userId), won.count);
    });

    test('when a code’s step is used, then only a confirmed authenticator takes it, only above the last step, and never twice', async (t) => {
      const { storage, userId, otherId } = await setUp(t);
      assert.equal(await storage.twoStep.useStep(userId, STEP), false, 'no authenticator');
      await storage.twoStep.begin(userId, 'v1.secret', AT);
      assert.equal(await storage.twoStep.useStep(userId, STEP), false, 'not confirmed');
      assert.equal(await storage.twoStep.confirm(userId, STEP, codes(1), AT), true);
      assert.equal(await storage.twoStep.useStep(userId, STEP), false, 'the confirming code again');
      assert.equal(await storage.twoStep.useStep(userId, STEP - 1), false, 'an earlier step');
      assert.equal(await storage.twoStep.useStep(userId, STEP + 1), true);
      assert.equal(await storage.twoStep.useStep(userId, STEP + 1), false, 'replayed');
      assert.equal(await storage.twoStep.useStep(userId, STEP + 3), true, 'a later step, skipping one');
      assert.equal(await storage.twoStep.useStep(userId, STEP + 2), false, 'the skipped one is now behind');
      assert.equal((await storage.twoStep.find(userId))?.lastStep, STEP + 3);
      assert.equal(await storage.twoStep.useStep(otherId, STEP + 4), false, 'another user has none');
    });

    test('when one step is used many times at once on two handles, then exactly one use is accepted', async (t) => {
      const { storage, other, userId } = await setUp(t);
      await turnOn(storage, userId, codes(1));
      const results = await Promise.all(Array.from({ length: 8 }, (_, i) => (i % 2 === 0 ? storage : other).twoStep.useStep(userId, STEP + 1)));
      assert.equal(results.filter(Boolean).length, 1, `accepted: ${results.join(', ')}`);
      assert.equal((await storage.twoStep.find(userId))?.lastStep, STEP + 1);
    });

    test('when a recovery code is used, then it counts once, for its own user only, and the unused ones are counted', async (t) => {
      const { storage, other, userId, otherId } = await setUp(t);
      const [first, second] = [code(1), code(2)];
      await turnOn(storage, userId, codes(1, 2, 3));
      await turnOn(storage, otherId, codes(9));
      assert.equal(await storage.twoStep.useRecoveryCode(otherId, first, at(MINUTE_MS)), false, "another user's code");
      assert.equal(await storage.twoStep.useRecoveryCode(userId, code(9), at(MINUTE_MS)), false, "the other user's code");
      assert.equal(await storage.twoStep.useRecoveryCode(userId, code(4), at(MINUTE_MS)), false, 'an unknown code');
      assert.equal(await storage.twoStep.useRecoveryCode(userId, first, at(MINUTE_MS)), true);
      assert.equal(await storage.twoStep.useRecoveryCode(userId, first, at(2 * MINUTE_MS)), false, 'used twice');
      assert.equal(await storage.twoStep.unusedRecoveryCodes(userId), 2);

      const racing = await Promise.all(Array.from({ length: 6 }, (_, i) => (i % 2 === 0 ? storage : other).twoStep.useRecoveryCode(userId, second, at(3 * MINUTE_MS))));
      assert.equal(racing.filter(Boolean).length, 1, `used: ${racing.join(', ')}`);
      assert.equal(await storage.twoStep.unusedRecoveryCodes(userId), 1);
      assert.equal(await storage.twoStep.unusedRecoveryCodes(otherId), 1);
    });

    test('when the recovery codes are replaced, then only a confirmed authenticator’s are, and the old codes stop working', async (t) => {
      const { storage, userId, rowsOf } = await setUp(t);
      assert.equal(await storage.twoStep.replaceRecoveryCodes(userId, codes(1, 2), AT), false, 'no authenticator');
      await storage.twoStep.begin(userId, 'v1.secret', AT);
      assert.equal(await storage.twoStep.replaceRecoveryCodes(userId, codes(1, 2), AT), false, 'not confirmed');
      assert.equal(await rowsOf('user_recovery_codes', userId), 0);

      assert.equal(await storage.twoStep.confirm(userId, STEP, codes(1, 2, 3), AT), true);
      assert.equal(await storage.twoStep.useRecoveryCode(userId, code(1), at(1000)), true);
      assert.equal(await storage.twoStep.replaceRecoveryCodes(userId, codes(4, 5, 6, 7), at(2000)), true);
      assert.equal(await storage.twoStep.unusedRecoveryCodes(userId), 4);
      assert.equal(await rowsOf('user_recovery_codes', userId), 4, 'the used code is gone too');
      assert.equal(await storage.twoStep.useRecoveryCode(userId, code(2), at(3000)), false, 'an old code');
      assert.equal(await storage.twoStep.useRecoveryCode(userId, code(4), at(3000)), true);
    });

    test('when two-step sign-in is removed, then the authenticator, its codes and the user’s pending sign-ins are gone, and other users keep theirs', async (t) => {
      const { storage, userId, otherId, rowsOf } = await setUp(t);
      for (const id of [userId, otherId]) {
        await turnOn(storage, id, codes(id * 10 + 1, id * 10 + 2));
        assert.equal(await storage.twoStep.useRecoveryCode(id, code(id * 10 + 1), at(1000)), true);
        await storage.twoStep.createPendingSignIn({ tokenHash: hashOf(id), userId: id, createdAt: AT, expiresAt: at(5 * MINUTE_MS) });
      }
      assert.equal(await storage.twoStep.remove(userId), true);
      assert.equal(await storage.twoStep.find(userId), undefined);
      for (const table of ['user_authenticators', 'user_recovery_codes', 'pending_sign_ins'] as const) assert.equal(await rowsOf(table, userId), 0, table);
      assert.equal(await storage.twoStep.findPendingSignIn(hashOf(userId), AT), undefined);
      assert.equal(await storage.twoStep.remove(userId), false, 'nothing left to remove');
      assert.equal(await storage.twoStep.begin(userId, 'v1.again', at(MINUTE_MS)), 'started', 'a new set-up may begin');

      assert.equal((await storage.twoStep.find(otherId))?.lastStep, STEP);
      assert.equal(await rowsOf('user_recovery_codes', otherId), 2);
      assert.equal(await storage.twoStep.findPendingSignIn(hashOf(otherId), AT), otherId);
    });

    test('when a replacement of the codes races the removal on two handles, then no code outlives the authenticator', async (t) => {
      const { storage, other, userId, rowsOf } = await setUp(t);
      for (let round = 0; round < 4; round++) {
        await turnOn(storage, userId, codes(1, 2));
        const [replaced, removed] = await Promise.all([storage.twoStep.replaceRecoveryCodes(userId, codes(3, 4, 5), at(2000)), other.twoStep.remove(userId)]);
        assert.equal(removed, true, `round ${round}`);
        assert.equal(typeof replaced, 'boolean');
        assert.equal(await storage.twoStep.find(userId), undefined);
        assert.equal(await rowsOf('user_recovery_codes', userId), 0, `round ${round}: replaced ${replaced}`);
      }
    });

    test('when a pending sign-in is stored, then it is found until it expires, consumed once, and expired ones are pruned as others arrive', async (t) => {
      const { storage, other, userId, otherId, rowsOf } = await setUp(t);
      await storage.twoStep.createPendingSignIn({ tokenHash: hashOf(1), userId, createdAt: AT, expiresAt: at(5 * MINUTE_MS) });
      await storage.twoStep.createPendingSignIn({ tokenHash: hashOf(2), userId: otherId, createdAt: AT, expiresAt: at(MINUTE_MS) });
      assert.equal(await storage.twoStep.findPendingSignIn(hashOf(1), at(1000)), userId);
      assert.equal(await storage.twoStep.findPendingSignIn(hashOf(1), at(5 * MINUTE_MS)), undefined, 'expired at its end');
      assert.equal(await storage.twoStep.findPendingSignIn(hashOf(3), AT), undefined, 'unknown');
      assert.equal(await storage.twoStep.findPendingSignIn(hashOf(1), at(2000)), userId, 'finding does not consume it');

      const consumed = await Promise.all([storage.twoStep.consumePendingSignIn(hashOf(1), at(3000)), other.twoStep.consumePendingSignIn(hashOf(1), at(3000))]);
      assert.deepEqual([...consumed].sort(), [userId, undefined], 'consumed once');
      assert.equal(await storage.twoStep.consumePendingSignIn(hashOf(1), at(4000)), undefined);
      assert.equal(await storage.twoStep.findPendingSignIn(hashOf(1), at(4000)), undefined);
      assert.equal(await storage.twoStep.consumePendingSignIn(hashOf(2), at(2 * MINUTE_MS)), undefined, 'expired');

      await storage.twoStep.createPendingSignIn({ tokenHash: hashOf(4), userId: otherId, createdAt: AT, expiresAt: at(MINUTE_MS) });
      await storage.twoStep.createPendingSignIn({ tokenHash: hashOf(5), userId, createdAt: AT, expiresAt: at(10 * MINUTE_MS) });
      // A sign-in two minutes later deletes the one that expired after one, of whoever, and keeps the live one.
      await storage.twoStep.createPendingSignIn({ tokenHash: hashOf(6), userId, createdAt: at(2 * MINUTE_MS), expiresAt: at(7 * MINUTE_MS) });
      assert.equal(await rowsOf('pending_sign_ins', otherId), 0, 'the expired one is pruned');
      assert.equal(await storage.twoStep.findPendingSignIn(hashOf(5), at(2 * MINUTE_MS)), userId);
      assert.equal(await storage.twoStep.findPendingSignIn(hashOf(6), at(2 * MINUTE_MS)), userId);
    });

    test("when a user's pending sign-ins are ended, then none of theirs is found any more, and other users' are", async (t) => {
      const { storage, userId, otherId } = await setUp(t);
      await storage.twoStep.createPendingSignIn({ tokenHash: hashOf(1), userId, createdAt: AT, expiresAt: at(5 * MINUTE_MS) });
      await storage.twoStep.createPendingSignIn({ tokenHash: hashOf(2), userId, createdAt: AT, expiresAt: at(5 * MINUTE_MS) });
      await storage.twoStep.createPendingSignIn({ tokenHash: hashOf(3), userId: otherId, createdAt: AT, expiresAt: at(5 * MINUTE_MS) });
      await storage.twoStep.endPendingSignIns(userId);
      assert.equal(await storage.twoStep.findPendingSignIn(hashOf(1), at(1000)), undefined);
      assert.equal(await storage.twoStep.consumePendingSignIn(hashOf(2), at(1000)), undefined);
      assert.equal(await storage.twoStep.findPendingSignIn(hashOf(3), at(1000)), otherId);
    });

    test('when the user is deleted, then their authenticator, recovery codes and pending sign-ins go with them', async (t) => {
      const { storage, config, userId, otherId, rowsOf } = await setUp(t);
      for (const id of [userId, otherId]) {
        await turnOn(storage, id, codes(id * 10 + 1, id * 10 + 2));
        await storage.twoStep.createPendingSignIn({ tokenHash: hashOf(id), userId: id, createdAt: AT, expiresAt: at(5 * MINUTE_MS) });
      }
      // No path of the program deletes a user today: the database's cascade is what holds it.
      await runSql(config, [...(config.kind === 'sqlite' ? ['PRAGMA foreign_keys = ON'] : []), `DELETE FROM users WHERE id = ${userId}`]);
      for (const table of ['user_authenticators', 'user_recovery_codes', 'pending_sign_ins'] as const) {
        assert.equal(await rowsOf(table, userId), 0, table);
        assert.equal(await rowsOf(table, otherId), table === 'user_recovery_codes' ? 2 : 1, `${table} of the other user`);
      }
    });
  });
}
