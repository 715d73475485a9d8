/**
 * Request ids as four 32-bit words (request-id-words.ts): the ids we issue
 * are random version 4 UUIDs, the last one's words kept for a capture to
 * copy, and any id in that form reads back from its words exactly.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { copyIssuedWords, newRequestUuid, packUuid, uuidText, UUID_LENGTH, writeUuid } from '../../src/request-logs/request-id-words.js';
import { createCaptureBuffer } from '../../src/request-logs/request-log-buffer.js';

const V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

test('when request ids are issued, then each is a version 4 UUID in randomUUID form, and none repeats', () => {
  // More than the random words drawn at once (1,024 ids), so that refills are crossed.
  const ids = Array.from({ length: 5000 }, () => newRequestUuid());
  for (const id of ids) assert.match(id, V4);
  assert.equal(new Set(ids).size, ids.length);
  // Every hexadecimal digit turns up in every free position: the words are not stuck.
  const seen = new Set(ids.map((id) => id[0]));
  assert.equal(seen.size, 16);
});

test('when the id issued last is asked for its words, then they are its text; once another is issued, or for any other id, there are none', () => {
  const id = newRequestUuid();
  const words = new Uint32Array(8);
  assert.equal(copyIssuedWords(id, words, 4), true);
  assert.equal(uuidText(words, 4), id);
  assert.equal(copyIssuedWords('f3b0c4a2-0000-4000-8000-000000000001', words, 0), false, 'an id we did not issue last');
  newRequestUuid();
  assert.equal(copyIssuedWords(id, words, 0), false);
});

test('when an id in UUID form is packed, then its text reads back exactly from the words, as text and as bytes', () => {
  const word = fc.integer({ min: 0, max: 0xffffffff });
  fc.assert(
    fc.property(fc.tuple(word, word, word, word), (four) => {
      const words = Uint32Array.from(four);
      const text = uuidText(words, 0);
      const bytes = Buffer.alloc(UUID_LENGTH + 2);
      writeUuid(words, 0, bytes, 1);
      assert.equal(bytes.toString('latin1', 1, 1 + UUID_LENGTH), text);
      const again = new Uint32Array(4);
      assert.equal(packUuid(text, again, 0), true);
      assert.deepEqual([...again], four);
    }),
  );
});

test('when the capture buffer takes the id issued last, one issued before, or a client\u2019s, then each reads back as it was', () => {
  const buffer = createCaptureBuffer();
  const capture = (requestId: string) =>
    buffer.push({ at: 0, method: 'GET', url: '/v1/store/orders', status: 200, durationMs: 1, requestId, accountId: 1, keyId: 2, clientAddress: undefined, userAgent: undefined, errorBody: undefined });
  const old = newRequestUuid();
  const fresh = newRequestUuid();
  // The id issued last first (its words copied), then one issued before (read from its text).
  const ids = [fresh, old, 'client-id-7', fresh.toUpperCase()];
  for (const id of ids) capture(id);
  const peeked = buffer.peek(ids.length);
  const read = ids.map((_, n) => peeked.requestId[n] ?? uuidText(peeked.uuids, n * 4));
  assert.deepEqual(read, ids);
  // Ours, issued last or before, are held as words; the client's and the uppercase one as text.
  assert.deepEqual(peeked.requestId, [undefined, undefined, 'client-id-7', fresh.toUpperCase()]);
});
