import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { IMPORT_PARSER_AHEAD, startImportParser } from '../../../src/orders/import/parser-thread.js';

const options = { accountId: 7, createdAt: '2026-11-24T05:00:00.000Z' };

describe('the import parser thread', () => {
  test('when batches are offered, then at most IMPORT_PARSER_AHEAD (more than a PostgreSQL statement\'s 10) wait, and they come back parsed in the order offered', async (t) => {
    const parser = startImportParser(options);
    t.after(() => parser.close());
    assert.ok(IMPORT_PARSER_AHEAD > 10);
    const batch = (first: number) => [0, 1].map((i) => `{"id":${first + i},"petId":9007199254740993,"quantity":${i + 1}}`);
    const firsts = Array.from({ length: IMPORT_PARSER_AHEAD }, (_, i) => 10 * (i + 1));
    for (const first of firsts) assert.equal(parser.offer(batch(first), [first, first + 1]), true);
    assert.equal(parser.offer(batch(5000), [5000, 5001]), false);
    for (const first of firsts) {
      const parsed = await parser.take();
      assert.ok(parsed !== undefined && 'orders' in parsed);
      assert.deepEqual(
        parsed.orders.map((o) => [o.id, o.accountId, o.petId, o.quantity, o.status, o.createdAt]),
        [0, 1].map((i) => [BigInt(first + i), 7, 9007199254740993n, i + 1, 'pending', options.createdAt]),
      );
      assert.deepEqual(parsed.numbers, [first, first + 1]);
    }
    assert.equal(parser.take(), undefined);
    assert.equal(parser.offer(['{"petId":1,"quantity":1}', '{"petId":1}'], [60, 62]), true);
    assert.deepEqual(await parser.take(), { refused: { line: 62, message: '"quantity" is required and must be a number.' } });
  });

  test('when the thread dies, then the batches waiting on it and every later one fail with a plain error', async (t) => {
    const parser = startImportParser(options, new URL('../../support/dying-import-worker.ts', import.meta.url));
    t.after(() => parser.close());
    parser.offer(['a'], [1]);
    assert.deepEqual(await parser.take(), { orders: [], numbers: [1] });
    // Offered only once the first answer is in: the thread's death could otherwise overtake that answer.
    parser.offer(['b'], [2]);
    await assert.rejects(parser.take() ?? Promise.resolve(), /^Error: the import's parser failed: out of memory, say$/);
    parser.offer(['c'], [3]);
    await assert.rejects(parser.take() ?? Promise.resolve(), /the import's parser failed/);
  });
});
