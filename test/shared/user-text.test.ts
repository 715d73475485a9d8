/** The one rule for text a person supplies and the service stores: no control characters, within bounds (fast-check). */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { ValidationError } from '../../src/errors/errors.js';
import { checkText, hasControlCharacter, textProblem } from '../../src/shared/user-text.js';

/** Unicode's Cc: C0 (U+0000–U+001F), DEL (U+007F) and C1 (U+0080–U+009F). */
const CONTROL = fc.oneof(fc.integer({ min: 0x00, max: 0x1f }), fc.constant(0x7f), fc.integer({ min: 0x80, max: 0x9f })).map((code) => String.fromCodePoint(code));
const isControl = (code: number) => code <= 0x1f || (code >= 0x7f && code <= 0x9f);
const NOT_CONTROL = fc.string({ unit: 'grapheme', maxLength: 30 }).filter((text) => ![...text].some((character) => isControl(character.codePointAt(0) ?? 0)));

test('when a text holds any C0 or C1 control character or DEL, wherever it is, then it is refused with the reason; any other Unicode passes', () => {
  fc.assert(
    fc.property(NOT_CONTROL, CONTROL, NOT_CONTROL, (before, control, after) => {
      const text = `${before}${control}${after}`;
      assert.equal(hasControlCharacter(text), true);
      assert.equal(textProblem('Store name', text, { max: 200 }), 'Store name must not contain control characters (such as line breaks, tabs or terminal escape sequences).');
      assert.throws(() => checkText('description', text), (error: unknown) => error instanceof ValidationError && error.code === 'validation_failed' && /^description must not contain control/.test(error.message));
    }),
    { numRuns: 500 },
  );
  fc.assert(
    fc.property(NOT_CONTROL, (text) => {
      assert.equal(hasControlCharacter(text), false);
      assert.equal(textProblem('Name', text, { max: 1000 }), undefined);
    }),
    { numRuns: 500 },
  );
  for (const text of ['ann\u001b[31m@example.com', 'bell\u0007', 'nul\u0000', 'del\u007f', 'csi\u009b2J', 'nel\u0085']) assert.equal(hasControlCharacter(text), true, JSON.stringify(text));
  for (const text of ['Ann’s Pets 🐶', 'Zoë', 'a\u200db', 'ﬁ']) assert.equal(hasControlCharacter(text), false, JSON.stringify(text));
});

test('when a text is shorter or longer than its bounds, then the reason names them', () => {
  assert.equal(textProblem('Key name', '', { min: 1, max: 64 }), 'Key name must be 1 to 64 characters.');
  assert.equal(textProblem('Key name', 'x'.repeat(65), { min: 1, max: 64 }), 'Key name must be 1 to 64 characters.');
  assert.equal(textProblem('Passkey name', 'x'.repeat(65), { max: 64 }), 'Passkey name must be at most 64 characters.');
  assert.equal(textProblem('Key name', 'x'.repeat(64), { min: 1, max: 64 }), undefined);
});
