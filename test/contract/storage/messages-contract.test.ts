/**
 * The messages part of the storage contract: the quickstart's message store
 * and delivery queue, the same cases on every adapter. The semantics are the
 * ones MessagesRepository documents and the dispatcher relies on: one
 * message per Idempotency-Key until the binding expires, claims that hold
 * until `claimedUntil`, settlements only by the claimant.
 */
import assert from 'node:assert/strict';
import { describe, test, type TestContext } from 'node:test';
import type { ClaimRequest } from '../../../src/delivery/delivery-queue.js';
import type { NewMessage } from '../../../src/messages/messages-repository.js';
import { openStorage } from '../../../src/storage/open-storage.js';
import type { Storage } from '../../../src/storage/storage.js';
import { isoPlus, rejectsWithCode, type ContractCoverage } from '../../support/storage-contract.js';
import { storageBackends } from '../../support/storage.js';

export const CONTRACT_COVERS = {
  messages: ['create', 'findForAccount', 'claimDue', 'markSent', 'markAttemptFailed', 'release', 'oldestDueAt'],
} as const satisfies ContractCoverage;

const T0 = '2026-11-22T10:00:00.000Z';
const at = (ms: number) => isoPlus(T0, ms);
const DAY_MS = 24 * 60 * 60 * 1000;
/** Far enough ahead that everything queued is due. */
const END = '9999-12-31T00:00:00.000Z';

function message(accountId: number, id: string, createdAtMs = 0, fields: Partial<NewMessage> = {}): NewMessage {
  return { id, accountId, message: `text of ${id}`, createdAt: at(createdAtMs), ...fields };
}

function keyed(key: string, fingerprint: string, expiresAtMs: number) {
  return { idempotency: { key, fingerprint, expiresAt: at(expiresAtMs) } };
}

for (const backend of storageBackends({ postgresDirect: true })) {
  describe(`messages storage contract: ${backend.name}`, () => {
    async function setUp(t: TestContext) {
      const { storage, config } = await backend.freshDatabase(t);
      const account = await storage.accounts.create({ name: 'Main Street Pets', createdAt: T0 });
      const other = await storage.accounts.create({ name: 'Harbour Pets', createdAt: T0 });
      /** A second handle on the same database: its own connection(s), racing the first. */
      const second = (): Storage => {
        const handle = openStorage(config);
        t.after(() => handle.close());
        return handle;
      };
      const claim = (request: Partial<ClaimRequest> & Pick<ClaimRequest, 'claimant'>, on: Storage = storage) =>
        on.messages.claimDue({ now: END, claimedUntil: END, limit: 100, ...request });
      return { storage, accountId: account.id, otherId: other.id, second, claim };
    }

    describe('messages.create and messages.findForAccount', () => {
      test('when a message is created without a key, then it is queued, unattempted, and found as stored by its own account only', async (t) => {
        const { storage, accountId, otherId } = await setUp(t);
        const text = `Grüße 🐾 ${'x'.repeat(4000)}`;
        const result = await storage.messages.create(message(accountId, 'm-1', 0, { message: text }), at(0));
        const stored = { id: 'm-1', accountId, message: text, status: 'queued', createdAt: at(0), attempts: 0 };
        assert.deepEqual(result, { created: true, message: stored });
        assert.deepEqual(Object.keys(result.message).sort(), ['accountId', 'attempts', 'createdAt', 'id', 'message', 'status'], 'sentAt absent, not null');
        assert.deepEqual(await storage.messages.findForAccount(accountId, 'm-1'), stored);
        assert.equal(await storage.messages.findForAccount(otherId, 'm-1'), undefined);
        assert.equal(await storage.messages.findForAccount(accountId, 'm-404'), undefined);
      });

      test('when the account does not exist, then create fails with account_not_found, with or without a key, and nothing is queued', async (t) => {
        const { storage, claim } = await setUp(t);
        await assert.rejects(storage.messages.create(message(999_999, 'm-1'), at(0)), rejectsWithCode('account_not_found'));
        await assert.rejects(storage.messages.create(message(999_999, 'm-2', 0, keyed('k', 'f', DAY_MS)), at(0)), rejectsWithCode('account_not_found'));
        assert.deepEqual(await claim({ claimant: 'probe' }), []);
      });

      test('when a key is used again before its binding expires, then the first message and fingerprint come back and nothing is written', async (t) => {
        const { storage, accountId, otherId, claim } = await setUp(t);
        const first = await storage.messages.create(message(accountId, 'm-1', 0, keyed('order-42', 'f1', DAY_MS)), at(0));
        assert.equal(first.created, true);
        // A different body (fingerprint) on the last millisecond of the binding: the repository replays, the service judges the fingerprint.
        const again = await storage.messages.create(message(accountId, 'm-2', DAY_MS - 1, { message: 'other', ...keyed('order-42', 'f2', 2 * DAY_MS) }), at(DAY_MS - 1));
        assert.deepEqual(again, { created: false, message: first.message, fingerprint: 'f1' });
        assert.equal(await storage.messages.findForAccount(accountId, 'm-2'), undefined);

        // The replay returns the message as it is now, not as it was.
        const [claimed] = await claim({ claimant: 'c1' });
        assert.equal(claimed?.id, 'm-1');
        assert.equal(await storage.messages.markSent({ id: 'm-1', claimant: 'c1', at: at(5) }), true);
        const later = await storage.messages.create(message(accountId, 'm-3', 10, keyed('order-42', 'f1', DAY_MS + 10)), at(10));
        assert.deepEqual(later, { created: false, message: { ...first.message, status: 'sent', attempts: 1, sentAt: at(5) }, fingerprint: 'f1' });

        // Keys are per account.
        const theirs = await storage.messages.create(message(otherId, 'm-4', 0, keyed('order-42', 'f1', DAY_MS)), at(0));
        assert.equal(theirs.created, true);
        assert.equal(theirs.message.id, 'm-4');
      });

      test('when a binding has expired, then the key is taken over: a new message is queued, the old one kept, and later uses replay the new one', async (t) => {
        const { storage, accountId } = await setUp(t);
        await storage.messages.create(message(accountId, 'm-1', 0, keyed('k', 'f1', 1000)), at(0));
        assert.equal((await storage.messages.create(message(accountId, 'm-2', 999, keyed('k', 'f2', 2000)), at(999))).created, false);
        // `expiresAt` is the first instant the binding no longer holds.
        const taken = await storage.messages.create(message(accountId, 'm-3', 1000, keyed('k', 'f3', 5000)), at(1000));
        assert.equal(taken.created, true);
        assert.equal(taken.message.id, 'm-3');
        const replay = await storage.messages.create(message(accountId, 'm-4', 4999, keyed('k', 'f4', 9000)), at(4999));
        assert.deepEqual(replay, { created: false, message: taken.message, fingerprint: 'f3' });
        assert.equal((await storage.messages.findForAccount(accountId, 'm-1'))?.status, 'queued');
        assert.equal(await storage.messages.findForAccount(accountId, 'm-2'), undefined);
        assert.equal(await storage.messages.findForAccount(accountId, 'm-4'), undefined);
      });

      test('when inserting the message fails, then the key is not bound either (binding and message are one step)', async (t) => {
        const { storage, accountId } = await setUp(t);
        await storage.messages.create(message(accountId, 'm-1'), at(0));
        // The only way to make the message's insert fail after the binding's: an id already used.
        await assert.rejects(storage.messages.create(message(accountId, 'm-1', 0, keyed('k', 'f1', DAY_MS)), at(0)));
        const next = await storage.messages.create(message(accountId, 'm-2', 0, keyed('k', 'f2', DAY_MS)), at(0));
        assert.equal(next.created, true);
        assert.equal(next.message.id, 'm-2');
      });

      test('when many creates with one key run at once on two connections, then exactly one inserts and every other gets its message', async (t) => {
        const { storage, accountId, second, claim } = await setUp(t);
        const other = second();
        const results = await Promise.all(
          Array.from({ length: 12 }, (_, i) =>
            (i % 2 === 0 ? storage : other).messages.create(message(accountId, `m-${i}`, 0, keyed('k', `f${i}`, DAY_MS)), at(0)),
          ),
        );
        const winners = results.filter((r) => r.created);
        assert.equal(winners.length, 1);
        const winner = winners[0]?.message;
        assert.ok(winner);
        const fingerprint = `f${winner.id.slice('m-'.length)}`;
        for (const result of results) {
          if (!result.created) assert.deepEqual(result, { created: false, message: winner, fingerprint });
        }
        assert.deepEqual((await claim({ claimant: 'probe' })).map((m) => m.id), [winner.id]);
      });

      test('when many creates race to take over one expired binding, then exactly one queues a message', async (t) => {
        const { storage, accountId, second, claim } = await setUp(t);
        await storage.messages.create(message(accountId, 'm-old', 0, keyed('k', 'f-old', 1000)), at(0));
        const other = second();
        const results = await Promise.all(
          Array.from({ length: 12 }, (_, i) =>
            (i % 2 === 0 ? storage : other).messages.create(message(accountId, `m-${i}`, 2000, keyed('k', `f${i}`, DAY_MS)), at(2000)),
          ),
        );
        const created = results.filter((r) => r.created).map((r) => r.message.id);
        assert.equal(created.length, 1);
        const [winner = 'none'] = created;
        assert.ok(results.every((r) => r.message.id === winner));
        assert.deepEqual((await claim({ claimant: 'probe' })).map((m) => m.id).sort(), ['m-old', winner].sort());
      });
    });

    describe('messages.claimDue', () => {
      test('when messages are due, then at most `limit` are claimed, the oldest due first, each with its attempt counted', async (t) => {
        const { storage, accountId, otherId, claim } = await setUp(t);
        await storage.messages.create(message(accountId, 'm-a', 300), at(300));
        await storage.messages.create(message(accountId, 'm-b', 100), at(100));
        await storage.messages.create(message(accountId, 'm-c', 200), at(200));
        await storage.messages.create(message(otherId, 'm-e', 150), at(150));
        // Created in the future of `now`: not due yet.
        await storage.messages.create(message(accountId, 'm-d', 5000), at(5000));

        const claimed = await claim({ claimant: 'c1', now: at(1000), claimedUntil: at(60_000), limit: 3 });
        assert.deepEqual(
          [...claimed].sort((a, b) => a.createdAt.localeCompare(b.createdAt)),
          [
            { id: 'm-b', accountId, message: 'text of m-b', createdAt: at(100), attempts: 1, dueAt: at(100) },
            { id: 'm-e', accountId: otherId, message: 'text of m-e', createdAt: at(150), attempts: 1, dueAt: at(150) },
            { id: 'm-c', accountId, message: 'text of m-c', createdAt: at(200), attempts: 1, dueAt: at(200) },
          ],
        );
        assert.deepEqual(await storage.messages.findForAccount(accountId, 'm-b'), {
          id: 'm-b', accountId, message: 'text of m-b', status: 'queued', createdAt: at(100), attempts: 1,
        });
        // Held claims are not handed out again; what is left and due is.
        assert.deepEqual((await claim({ claimant: 'c2', now: at(1000), claimedUntil: at(60_000) })).map((m) => m.id), ['m-a']);
        assert.deepEqual(await claim({ claimant: 'c3', now: at(4999), claimedUntil: at(60_000) }), []);
        assert.deepEqual((await claim({ claimant: 'c3', now: at(5000), claimedUntil: at(60_000) })).map((m) => m.id), ['m-d']);
      });

      test('when a claim is held, then nobody takes the message before claimedUntil, and due order counts retries by their retry time', async (t) => {
        const { storage, accountId, claim } = await setUp(t);
        await storage.messages.create(message(accountId, 'm-1', 0), at(0));
        await storage.messages.create(message(accountId, 'm-2', 200), at(200));
        assert.deepEqual((await claim({ claimant: 'c1', now: at(100), claimedUntil: at(10_000), limit: 1 })).map((m) => m.id), ['m-1']);
        assert.equal(await storage.messages.markAttemptFailed({ id: 'm-1', claimant: 'c1', at: at(150), error: 'HTTP 500', retryAt: at(300) }), true);
        await storage.messages.create(message(accountId, 'm-3', 400), at(400));
        // Due at 200 (m-2), 300 (m-1's retry), 400 (m-3): the two oldest due.
        const claimed = await claim({ claimant: 'c2', now: at(500), claimedUntil: at(1000), limit: 2 });
        // Each claim carries when it fell due: its creation, or its retry time.
        assert.deepEqual(claimed.map((m) => [m.id, m.attempts, m.dueAt]).sort(), [['m-1', 2, at(300)], ['m-2', 1, at(200)]]);
        assert.deepEqual((await claim({ claimant: 'c3', now: at(999), claimedUntil: at(2000) })).map((m) => m.id), ['m-3']);
        assert.deepEqual(
          (await claim({ claimant: 'c4', now: at(1000), claimedUntil: at(2000) })).map((m) => [m.id, m.attempts, m.dueAt]).sort(),
          [['m-1', 3, at(1000)], ['m-2', 2, at(1000)]],
          'claims that lapsed at claimedUntil are due again',
        );
      });

      test('when many claimers on two connections claim at once, then no message is claimed twice and no batch exceeds its limit', async (t) => {
        const { storage, accountId, second } = await setUp(t);
        const ids = Array.from({ length: 40 }, (_, i) => `m-${String(i).padStart(2, '0')}`);
        for (const [i, id] of ids.entries()) await storage.messages.create(message(accountId, id, i), at(i));
        const other = second();
        const claimed: string[] = [];
        await Promise.all(
          Array.from({ length: 8 }, async (_, index) => {
            const handle = index % 2 === 0 ? storage : other;
            for (;;) {
              const batch = await handle.messages.claimDue({ claimant: `c${index}`, now: at(1000), claimedUntil: at(60_000), limit: 3 });
              assert.ok(batch.length <= 3, `a batch of ${batch.length}`);
              if (batch.length === 0) return;
              claimed.push(...batch.map((m) => m.id));
            }
          }),
        );
        assert.deepEqual([...claimed].sort(), ids);
      });
    });

    describe('messages.oldestDueAt', () => {
      test('when messages wait, are claimed, retried and settled, then the oldest due time is that of the earliest still waiting, and undefined when none waits', async (t) => {
        const { storage, accountId, claim } = await setUp(t);
        assert.equal(await storage.messages.oldestDueAt(), undefined);
        await storage.messages.create(message(accountId, 'm-1', 100), at(100));
        await storage.messages.create(message(accountId, 'm-2', 200), at(200));
        assert.equal(await storage.messages.oldestDueAt(), at(100));
        // A claim moves the item out of "waiting" until its lease ends.
        assert.deepEqual((await claim({ claimant: 'c1', now: at(500), claimedUntil: at(60_000), limit: 1 })).map((m) => m.id), ['m-1']);
        assert.equal(await storage.messages.oldestDueAt(), at(200));
        assert.equal(await storage.messages.markAttemptFailed({ id: 'm-1', claimant: 'c1', at: at(600), error: 'HTTP 500', retryAt: at(150) }), true);
        assert.equal(await storage.messages.oldestDueAt(), at(150));
        const [retried] = await claim({ claimant: 'c2', now: at(700), claimedUntil: at(60_000), limit: 1 });
        assert.equal(retried?.id, 'm-1');
        assert.equal(await storage.messages.markAttemptFailed({ id: 'm-1', claimant: 'c2', at: at(800), error: 'HTTP 500' }), true, 'given up');
        assert.equal(await storage.messages.oldestDueAt(), at(200));
        const [last] = await claim({ claimant: 'c3', now: at(900), claimedUntil: at(60_000), limit: 1 });
        assert.equal(last?.id, 'm-2');
        assert.equal(await storage.messages.markSent({ id: 'm-2', claimant: 'c3', at: at(950) }), true);
        assert.equal(await storage.messages.oldestDueAt(), undefined);
      });
    });

    describe('messages.markSent', () => {
      test('when the claimant settles, then the message is sent at `at` and leaves the queue; no other or later settlement counts', async (t) => {
        const { storage, accountId, claim } = await setUp(t);
        await storage.messages.create(message(accountId, 'm-1'), at(0));
        await storage.messages.create(message(accountId, 'm-2'), at(0));
        assert.equal(await storage.messages.markSent({ id: 'm-2', claimant: 'c1', at: at(10) }), false, 'never claimed');
        await claim({ claimant: 'c1', now: at(0), claimedUntil: at(60_000), limit: 1 });

        assert.equal(await storage.messages.markSent({ id: 'm-1', claimant: 'c2', at: at(10) }), false, 'not the claimant');
        assert.equal((await storage.messages.findForAccount(accountId, 'm-1'))?.status, 'queued');
        assert.equal(await storage.messages.markSent({ id: 'm-1', claimant: 'c1', at: at(500) }), true);
        assert.deepEqual(await storage.messages.findForAccount(accountId, 'm-1'), {
          id: 'm-1', accountId, message: 'text of m-1', status: 'sent', createdAt: at(0), attempts: 1, sentAt: at(500),
        });

        assert.equal(await storage.messages.markSent({ id: 'm-1', claimant: 'c1', at: at(600) }), false);
        assert.equal(await storage.messages.markAttemptFailed({ id: 'm-1', claimant: 'c1', at: at(600), error: 'late' }), false);
        assert.equal(await storage.messages.release({ id: 'm-1', claimant: 'c1', at: at(600) }), false);
        assert.equal(await storage.messages.markSent({ id: 'm-404', claimant: 'c1', at: at(600) }), false);
        assert.equal((await storage.messages.findForAccount(accountId, 'm-1'))?.sentAt, at(500));
        assert.deepEqual((await claim({ claimant: 'probe' })).map((m) => m.id), ['m-2']);
      });
    });

    describe('messages.markAttemptFailed', () => {
      test('when an attempt fails with a retry time, then the message stays queued and counted and is due again exactly at retryAt', async (t) => {
        const { storage, accountId, claim } = await setUp(t);
        await storage.messages.create(message(accountId, 'm-1'), at(0));
        await claim({ claimant: 'c1', now: at(0), claimedUntil: at(60_000) });
        assert.equal(await storage.messages.markAttemptFailed({ id: 'm-1', claimant: 'c2', at: at(10), error: 'not mine', retryAt: at(20) }), false);
        assert.equal(await storage.messages.markAttemptFailed({ id: 'm-1', claimant: 'c1', at: at(10), error: 'HTTP 500', retryAt: at(5000) }), true);
        assert.deepEqual(await storage.messages.findForAccount(accountId, 'm-1'), {
          id: 'm-1', accountId, message: 'text of m-1', status: 'queued', createdAt: at(0), attempts: 1,
        });
        // The failure ended the claim: the old claimant cannot settle any more.
        assert.equal(await storage.messages.markSent({ id: 'm-1', claimant: 'c1', at: at(20) }), false);
        assert.deepEqual(await claim({ claimant: 'c3', now: at(4999), claimedUntil: at(60_000) }), []);
        assert.deepEqual((await claim({ claimant: 'c3', now: at(5000), claimedUntil: at(60_000) })).map((m) => [m.id, m.attempts]), [['m-1', 2]]);
      });

      test('when an attempt fails without a retry time, then the message is failed for good and never claimed again', async (t) => {
        const { storage, accountId, claim } = await setUp(t);
        await storage.messages.create(message(accountId, 'm-1'), at(0));
        await claim({ claimant: 'c1', now: at(0), claimedUntil: at(60_000) });
        assert.equal(await storage.messages.markAttemptFailed({ id: 'm-1', claimant: 'c1', at: at(10), error: 'gone' }), true);
        assert.deepEqual(await storage.messages.findForAccount(accountId, 'm-1'), {
          id: 'm-1', accountId, message: 'text of m-1', status: 'failed', createdAt: at(0), attempts: 1,
        });
        assert.deepEqual(await claim({ claimant: 'probe' }), []);
        assert.equal(await storage.messages.markSent({ id: 'm-1', claimant: 'c1', at: at(20) }), false);
        assert.equal(await storage.messages.markSent({ id: 'm-1', claimant: 'probe', at: at(20) }), false);
        assert.equal((await storage.messages.findForAccount(accountId, 'm-1'))?.status, 'failed');
      });
    });

    describe('messages.release', () => {
      test('when a claim is released, then the attempt is given back and the message is due at `at`; only the claimant can release', async (t) => {
        const { storage, accountId, claim } = await setUp(t);
        await storage.messages.create(message(accountId, 'm-1'), at(0));
        assert.equal((await claim({ claimant: 'c1', now: at(0), claimedUntil: at(60_000) }))[0]?.attempts, 1);
        assert.equal(await storage.messages.release({ id: 'm-1', claimant: 'c2', at: at(700) }), false);
        assert.equal(await storage.messages.release({ id: 'm-1', claimant: 'c1', at: at(700) }), true);
        assert.deepEqual(await storage.messages.findForAccount(accountId, 'm-1'), {
          id: 'm-1', accountId, message: 'text of m-1', status: 'queued', createdAt: at(0), attempts: 0,
        });
        assert.equal(await storage.messages.release({ id: 'm-1', claimant: 'c1', at: at(700) }), false, 'released already');
        assert.deepEqual(await claim({ claimant: 'c3', now: at(699), claimedUntil: at(60_000) }), []);
        assert.deepEqual((await claim({ claimant: 'c3', now: at(700), claimedUntil: at(60_000) })).map((m) => [m.id, m.attempts]), [['m-1', 1]]);
        assert.equal(await storage.messages.markSent({ id: 'm-1', claimant: 'c1', at: at(800) }), false);
        assert.equal(await storage.messages.markSent({ id: 'm-1', claimant: 'c3', at: at(800) }), true);
      });
    });
  });
}
