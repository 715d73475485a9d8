import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createDummyHash, hashPassword, passwordProblem, verifyPassword } from '../../src/users/passwords.js';

describe('passwords', () => {
  test('when a password is hashed, then it is Argon2id with 19 MiB, 2 iterations and 1 lane, salted, and only that password verifies', async () => {
    const first = await hashPassword('correct horse battery staple');
    const second = await hashPassword('correct horse battery staple');
    assert.match(first, /^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
    assert.notEqual(first, second, 'a fresh salt each time');
    assert.equal(await verifyPassword(first, 'correct horse battery staple'), true);
    assert.equal(await verifyPassword(first, 'correct horse battery stapl'), false);
    assert.equal(await verifyPassword('not a hash', 'anything'), false, 'a malformed hash is a mismatch, not a throw');
    assert.match(await createDummyHash(), /^\$argon2id\$v=19\$m=19456,t=2,p=1\$/, 'the dummy hash costs the same');
  });

  test('when a password is checked, then 12 to 1024 characters (code points) of anything pass and nothing else is asked', () => {
    assert.equal(passwordProblem('a'.repeat(11)), 'Use at least 12 characters.');
    assert.equal(passwordProblem('a'.repeat(12)), undefined);
    assert.equal(passwordProblem('🐶'.repeat(12)), undefined, 'twelve emoji are twelve characters');
    assert.equal(passwordProblem('x'.repeat(1024)), undefined);
    assert.equal(passwordProblem('x'.repeat(1025)), 'Use at most 1024 characters.');
  });
});
