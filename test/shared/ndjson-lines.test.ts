import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { ndjsonLines } from '../../src/shared/ndjson-lines.js';

async function* chunksOf(bytes: Buffer, cuts: readonly number[]): AsyncGenerator<Buffer> {
  let start = 0;
  for (const cut of [...cuts].sort((a, b) => a - b)) {
    yield bytes.subarray(start, cut);
    start = cut;
  }
  yield bytes.subarray(start);
}

async function collect(source: AsyncIterable<Buffer | string>): Promise<{ lines: string[]; bytes: number }> {
  const { lines, bytesRead } = ndjsonLines(source);
  const out: string[] = [];
  for await (const group of lines) out.push(...group);
  return { lines: out, bytes: bytesRead() };
}

describe('NDJSON lines', () => {
  test('when lines end in LF or CRLF, then a lone CR stays inside its line, a BOM is skipped and the last line needs no LF', async () => {
    const text = '\uFEFF{"a":1}\r\n{"b":\r2}\n\n{"c":"é€😀"}\r\n  \nlast';
    const { lines, bytes } = await collect(chunksOf(Buffer.from(text), []));
    assert.deepEqual(lines, ['{"a":1}', '{"b":\r2}', '', '{"c":"é€😀"}', '  ', 'last']);
    assert.equal(bytes, Buffer.byteLength(text));
  });

  test('when the bytes arrive cut anywhere, even inside a character or between CR and LF, then the lines are the same', async () => {
    const text = '\uFEFF{"n":"ü"}\r\n{"n":"😀😀"}\n\r\n{"x":\r1}\r\n';
    const bytes = Buffer.from(text);
    const expected = ['{"n":"ü"}', '{"n":"😀😀"}', '', '{"x":\r1}'];
    await fc.assert(
      fc.asyncProperty(fc.uniqueArray(fc.integer({ min: 0, max: bytes.length }), { maxLength: 8 }), async (cuts) => {
        const result = await collect(chunksOf(bytes, cuts));
        assert.deepEqual(result.lines, expected);
        assert.equal(result.bytes, bytes.length);
      }),
      { numRuns: 300 },
    );
  });

  test('when the input is empty or only a newline, then there is no line or one blank line', async () => {
    assert.deepEqual((await collect(chunksOf(Buffer.alloc(0), []))).lines, []);
    assert.deepEqual((await collect(chunksOf(Buffer.from('\n'), []))).lines, ['']);
    assert.deepEqual((await collect(chunksOf(Buffer.from('\uFEFF'), []))).lines, []);
  });

  test('when the input is strings, then bytes are counted as UTF-8', async () => {
    async function* strings() {
      yield 'ab\n€';
      yield 'c\n';
    }
    assert.deepEqual(await collect(strings()), { lines: ['ab', '€c'], bytes: 8 });
  });

  test('when nobody asks for a line, then nothing is read; then the lines of a chunk come as one group', async () => {
    let pulled = 0;
    async function* counted() {
      pulled++;
      yield Buffer.from('a\nb\n');
    }
    const { lines } = ndjsonLines(counted());
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(pulled, 0);
    assert.deepEqual(await lines.next(), { done: false, value: ['a', 'b'] });
    assert.equal(pulled, 1);
  });
});
