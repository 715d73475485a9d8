import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { arrayMemberTexts } from '../../src/shared/json.js';

describe('arrayMemberTexts', () => {
  test('when an object holds an array among other members, in any layout, then each element comes back as its exact source text', () => {
    fc.assert(
      fc.property(fc.array(fc.jsonValue(), { maxLength: 8 }), fc.jsonValue(), fc.boolean(), (elements, other, spaced) => {
        const texts = elements.map((element) => JSON.stringify(element, null, spaced ? 1 : undefined));
        const text = `{"before":${JSON.stringify(other)},"data" : [${texts.join(spaced ? ' ,\n ' : ',')}],"nextCursor":"]}\\","}`;
        assert.deepEqual(arrayMemberTexts(text, 'data'), texts);
      }),
    );
  });

  test('when digits pass 2^53, then they are kept as written; a nested or missing member is not taken for the one asked', () => {
    const text = '{"other":{"data":[1]},"data":[{"id":9223372036854775807},"x\\"]"],"n":1}';
    assert.deepEqual(arrayMemberTexts(text, 'data'), ['{"id":9223372036854775807}', '"x\\"]"']);
    assert.equal(arrayMemberTexts('{"other":{"data":[1]}}', 'data'), undefined);
    assert.equal(arrayMemberTexts('{"data":{"a":[1]}}', 'data'), undefined);
    assert.deepEqual(arrayMemberTexts('{"data":[]}', 'data'), []);
  });
});
