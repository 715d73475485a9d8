/**
 * The mail part of the storage contract: outgoing mail and its delivery
 * queue, the same cases on every adapter. The semantics are the ones
 * MailRepository documents and the mail engine relies on: claims that hold
 * until `claimedUntil`, settlements only by the claimant, the channel a sent
 * mail went by, and `insertMail` committing (or rolling back) with the
 * transaction of the change that queues it.
 */
import assert from 'node:assert/strict';
import { describe, test, type TestContext } from 'node:test';
import type { ClaimRequest } from '../../../src/delivery/delivery-queue.js';
import type { NewMail } from '../../../src/mail/mail-repository.js';
import { openStorage } from '../../../src/storage/open-storage.js';
import { createPostgresPool } from '../../../src/storage/postgres/postgres-pool.js';
import { insertMail as insertPostgresMail } from '../../../src/storage/postgres/postgres-mail-repository.js';
import { Database } from '../../../src/storage/sqlite/sqlite-driver.js';
import { insertMail as insertSqliteMail } from '../../../src/storage/sqlite/sqlite-mail-repository.js';
import { statementCache } from '../../../src/storage/sqlite/sqlite-util.js';
import type { Storage } from '../../../src/storage/storage.js';
import type { DatabaseConfig } from '../../../src/config/config.js';
import { isoPlus, rejectsWithCode, type ContractCoverage } from '../../support/storage-contract.js';
import { storageBackends } from '../../support/storage.js';

export const CONTRACT_COVERS = {
  mail: ['enqueue', 'list', 'find', 'claimDue', 'markSent', 'markAttemptFailed', 'release', 'oldestDueAt'],
} as const satisfies ContractCoverage;

const T0 = '2026-11-22T10:00:00.000Z';
const at = (ms: number) => isoPlus(T0, ms);
/** Far enough ahead that everything queued is due. */
const END = '9999-12-31T00:00:00.000Z';

function mail(id: string, createdAtMs = 0, fields: Partial<NewMail> = {}): NewMail {
  return { id, kind: 'password-reset', recipient: `${id}@example.com`, subject: `Subject of ${id}`, sealedBody: `v1.sealed-${id}`, createdAt: at(createdAtMs), ...fields };
}

/**
 * Runs `work` with the adapter's `insertMail` inside a transaction of a
 * connection of its own, as another repository's change would, and commits
 * it unless `work` throws.
 */
async function inAnotherTransaction(config: DatabaseConfig, mails: readonly NewMail[], fail: boolean): Promise<void> {
  if (config.kind === 'sqlite') {
    const db = new Database(config.path);
    try {
      const sql = statementCache(db);
      db.transaction(() => {
        insertSqliteMail(sql, mails);
        if (fail) throw new Error('the change failed');
      }).immediate();
    } finally {
      db.close();
    }
    return;
  }
  const pool = createPostgresPool({ url: config.url, poolSize: 1 });
  try {
    await pool.transaction(async (tx) => {
      await insertPostgresMail(tx, mails);
      if (fail) throw new Error('the change failed');
    });
  } finally {
    await pool.end();
  }
}

for (const backend of storageBackends({ postgresDirect: true })) {
  describe(`mail storage contract: ${backend.name}`, () => {
    async function setUp(t: TestContext) {
      const { storage, config } = await backend.freshDatabase(t);
      const account = await storage.accounts.create({ name: 'Main Street Pets', createdAt: T0 });
      /** A second handle on the same database: its own connection(s), racing the first. */
      const second = (): Storage => {
        const handle = openStorage(config);
        t.after(() => handle.close());
        return handle;
      };
      const claim = (request: Partial<ClaimRequest> & Pick<ClaimRequest, 'claimant'>, on: Storage = storage) =>
        on.mail.claimDue({ now: END, claimedUntil: END, limit: 100, ...request });
      return { storage, config, accountId: account.id, second, claim };
    }

    describe('mail.enqueue, mail.find and mail.list', () => {
      test('when a mail is queued, then it is found pending, due at its creation, with its sealed body, and listed without it', async (t) => {
        const { storage, accountId } = await setUp(t);
        const onMail: number[] = [];
        const off = storage.onMailQueued(() => onMail.push(1));
        t.after(off);
        await storage.mail.enqueue(mail('m-1', 0, { accountId, subject: 'Grüße 🐾' }));
        const record = { id: 'm-1', kind: 'password-reset', recipient: 'm-1@example.com', subject: 'Grüße 🐾', accountId, status: 'pending', attempts: 0, createdAt: at(0), nextAttemptAt: at(0) };
        assert.deepEqual(await storage.mail.find('m-1'), { ...record, sealedBody: 'v1.sealed-m-1' });
        assert.deepEqual(await storage.mail.list({ limit: 10 }), [record]);
        assert.equal(await storage.mail.find('m-404'), undefined);
        await new Promise((resolve) => setImmediate(resolve));
        assert.deepEqual(onMail, [1], 'this process is told after the commit, once');
      });

      test('when mail is listed, then it comes newest first, at most `limit`, filtered by recipient and status', async (t) => {
        const { storage, claim } = await setUp(t);
        await storage.mail.enqueue(mail('m-1', 100, { recipient: 'ann@example.com' }));
        await storage.mail.enqueue(mail('m-2', 300, { recipient: 'bob@example.com' }));
        await storage.mail.enqueue(mail('m-3', 200, { recipient: 'ann@example.com', kind: 'invitation' }));
        assert.deepEqual((await storage.mail.list({ limit: 10 })).map((m) => m.id), ['m-2', 'm-3', 'm-1']);
        assert.deepEqual((await storage.mail.list({ limit: 2 })).map((m) => m.id), ['m-2', 'm-3']);
        assert.deepEqual((await storage.mail.list({ limit: 10, recipient: 'ann@example.com' })).map((m) => m.id), ['m-3', 'm-1']);
        const [claimed] = await claim({ claimant: 'c1', now: at(150), limit: 1 });
        assert.equal(claimed?.id, 'm-1');
        await storage.mail.markSent({ id: 'm-1', claimant: 'c1', at: at(160), channel: 'outbox' });
        assert.deepEqual((await storage.mail.list({ limit: 10, status: 'sent' })).map((m) => m.id), ['m-1']);
        assert.deepEqual((await storage.mail.list({ limit: 10, status: 'pending', recipient: 'ann@example.com' })).map((m) => m.id), ['m-3']);
        assert.deepEqual(await storage.mail.list({ limit: 10, status: 'failed' }), []);
      });

      test('when the account does not exist, then enqueue fails with account_not_found and nothing is queued', async (t) => {
        const { storage, claim } = await setUp(t);
        await assert.rejects(storage.mail.enqueue(mail('m-1', 0, { accountId: 999_999 })), rejectsWithCode('account_not_found'));
        assert.deepEqual(await claim({ claimant: 'probe' }), []);
      });

      test('when another change queues mail in its own transaction, then the mail commits with it, and not at all when it rolls back', async (t) => {
        const { storage, config } = await setUp(t);
        await assert.rejects(inAnotherTransaction(config, [mail('m-rolled-back')], true), /the change failed/);
        await inAnotherTransaction(config, [mail('m-1', 0), mail('m-2', 10)], false);
        assert.equal(await storage.mail.find('m-rolled-back'), undefined);
        assert.deepEqual((await storage.mail.list({ limit: 10 })).map((m) => [m.id, m.status]), [['m-2', 'pending'], ['m-1', 'pending']]);
      });
    });

    describe('mail.claimDue, mail.markSent, mail.markAttemptFailed, mail.release and mail.oldestDueAt', () => {
      test('when mail is due, then at most `limit` is claimed, the oldest due first, each with its attempt counted and its sealed body', async (t) => {
        const { storage, claim } = await setUp(t);
        assert.equal(await storage.mail.oldestDueAt(), undefined);
        await storage.mail.enqueue(mail('m-a', 300));
        await storage.mail.enqueue(mail('m-b', 100));
        await storage.mail.enqueue(mail('m-c', 200));
        await storage.mail.enqueue(mail('m-d', 5000));
        assert.equal(await storage.mail.oldestDueAt(), at(100));
        const claimed = await claim({ claimant: 'c1', now: at(1000), claimedUntil: at(60_000), limit: 2 });
        assert.deepEqual(claimed, [
          { id: 'm-b', kind: 'password-reset', recipient: 'm-b@example.com', subject: 'Subject of m-b', sealedBody: 'v1.sealed-m-b', createdAt: at(100), attempts: 1, dueAt: at(100) },
          { id: 'm-c', kind: 'password-reset', recipient: 'm-c@example.com', subject: 'Subject of m-c', sealedBody: 'v1.sealed-m-c', createdAt: at(200), attempts: 1, dueAt: at(200) },
        ]);
        assert.equal(await storage.mail.oldestDueAt(), at(300), 'claimed mail is due again only at its lease\'s end');
        assert.deepEqual((await claim({ claimant: 'c2', now: at(1000) })).map((m) => m.id), ['m-a']);
        assert.deepEqual(await claim({ claimant: 'c3', now: at(4999) }), []);
        assert.deepEqual((await claim({ claimant: 'c3', now: at(5000), claimedUntil: at(60_000) })).map((m) => m.id), ['m-d']);
        assert.deepEqual((await claim({ claimant: 'c4', now: at(60_000), claimedUntil: at(70_000) })).map((m) => [m.id, m.attempts]), [['m-b', 2], ['m-c', 2], ['m-d', 2]], 'lapsed claims are due again');
      });

      test('when two handles claim at once, then no mail is claimed twice', async (t) => {
        const { storage, second, claim } = await setUp(t);
        for (let i = 0; i < 20; i++) await storage.mail.enqueue(mail(`m-${String(i).padStart(2, '0')}`, i));
        const other = second();
        const results = await Promise.all(Array.from({ length: 8 }, (_, i) => claim({ claimant: `c${i}`, now: at(1000), claimedUntil: at(60_000), limit: 3 }, i % 2 === 0 ? storage : other)));
        const ids = results.flat().map((m) => m.id);
        assert.equal(new Set(ids).size, ids.length);
        assert.equal(ids.length, 20);
      });

      test('when a claimed mail is sent, then only its claimant settles it, with the channel it went by, and its last error is cleared', async (t) => {
        const { storage, claim } = await setUp(t);
        await storage.mail.enqueue(mail('m-1'));
        await storage.mail.enqueue(mail('m-2', 1));
        await claim({ claimant: 'c1', now: at(10), claimedUntil: at(1000) });
        assert.equal(await storage.mail.markAttemptFailed({ id: 'm-1', claimant: 'c1', at: at(20), error: 'The mail server refused the mail: 451 4.3.0 Try later', retryAt: at(30) }), true);
        await claim({ claimant: 'c2', now: at(30), claimedUntil: at(1000) });
        assert.equal(await storage.mail.markSent({ id: 'm-1', claimant: 'c1', at: at(40), channel: 'smtp' }), false, 'the first claim lapsed when it failed');
        assert.equal(await storage.mail.markSent({ id: 'm-1', claimant: 'c2', at: at(40), channel: 'smtp' }), true);
        assert.equal(await storage.mail.markSent({ id: 'm-1', claimant: 'c2', at: at(41), channel: 'smtp' }), false, 'once');
        assert.equal(await storage.mail.markSent({ id: 'm-2', claimant: 'c1', at: at(40), channel: 'outbox' }), true);
        const [second, first] = await storage.mail.list({ limit: 10 });
        assert.deepEqual(first, { id: 'm-1', kind: 'password-reset', recipient: 'm-1@example.com', subject: 'Subject of m-1', status: 'sent', attempts: 2, createdAt: at(0), sentAt: at(40), channel: 'smtp' });
        assert.equal(second?.channel, 'outbox');
        assert.equal(await storage.mail.oldestDueAt(), undefined);
      });

      test('when an attempt fails, then the mail is due at its retry time with its reason, or failed for good without one', async (t) => {
        const { storage, claim } = await setUp(t);
        await storage.mail.enqueue(mail('m-1'));
        await claim({ claimant: 'c1', now: at(10), claimedUntil: at(1000) });
        assert.equal(await storage.mail.markAttemptFailed({ id: 'm-1', claimant: 'other', at: at(20), error: 'x', retryAt: at(500) }), false);
        assert.equal(await storage.mail.markAttemptFailed({ id: 'm-1', claimant: 'c1', at: at(20), error: 'The mail server could not be reached (ECONNREFUSED).', retryAt: at(500) }), true);
        const [pending] = await storage.mail.list({ limit: 1 });
        assert.deepEqual([pending?.status, pending?.attempts, pending?.nextAttemptAt, pending?.lastError], ['pending', 1, at(500), 'The mail server could not be reached (ECONNREFUSED).']);
        assert.deepEqual(await claim({ claimant: 'c2', now: at(499) }), []);
        await claim({ claimant: 'c2', now: at(500), claimedUntil: at(2000) });
        assert.equal(await storage.mail.markAttemptFailed({ id: 'm-1', claimant: 'c2', at: at(600), error: 'The mail server did not answer in time.' }), true);
        const failed = await storage.mail.find('m-1');
        assert.deepEqual([failed?.status, failed?.attempts, failed?.nextAttemptAt, failed?.lastError], ['failed', 2, undefined, 'The mail server did not answer in time.']);
        assert.deepEqual(await claim({ claimant: 'c3' }), [], 'a failed mail is never claimed again');
      });

      test('when a claim is released, then the mail is due at once, its attempt not counted, and only its claimant can release it', async (t) => {
        const { storage, claim } = await setUp(t);
        await storage.mail.enqueue(mail('m-1'));
        await claim({ claimant: 'c1', now: at(10), claimedUntil: at(10_000) });
        assert.equal(await storage.mail.release({ id: 'm-1', claimant: 'other', at: at(20) }), false);
        assert.equal(await storage.mail.release({ id: 'm-1', claimant: 'c1', at: at(20) }), true);
        assert.equal(await storage.mail.oldestDueAt(), at(20));
        assert.deepEqual((await claim({ claimant: 'c2', now: at(20) })).map((m) => [m.id, m.attempts, m.dueAt]), [['m-1', 1, at(20)]]);
      });
    });
  });
}
