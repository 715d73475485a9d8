import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { dictionary } from '@zxcvbn-ts/language-common';
import { COMMON_PASSWORDS_COUNT, createDummyHash, hashPassword, passwordProblem, verifyPassword } from '../../src/users/passwords.js';

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

  test('when a password is checked, then 12 to 128 characters (code points) of any Unicode pass and no composition is asked', async () => {
    const owner = { email: 'ann@example.com', storeName: 'Main Street Pets' };
    assert.equal(await passwordProblem('a'.repeat(11), owner), 'Use at least 12 characters.');
    assert.equal(await passwordProblem('🐶'.repeat(12), owner), undefined, 'twelve emoji are twelve characters');
    assert.equal(await passwordProblem('пароль пароль 🐶', owner), undefined);
    assert.equal(await passwordProblem('x'.repeat(128), owner), undefined);
    assert.equal(await passwordProblem('🐶'.repeat(128), owner), undefined, '128 emoji are 256 UTF-16 units, still 128 characters');
    assert.equal(await passwordProblem('x'.repeat(129), owner), 'Use at most 128 characters.');
    assert.equal(await passwordProblem('alllowercase', owner), undefined, 'no digit, capital or symbol is asked for');
  });

  test('when a password is one of the 10,000 most common, in any case or Unicode compatibility form, then it is refused; the 10,001st is not', async () => {
    const owner = { email: 'ann@example.com', storeName: 'Main Street Pets' };
    const common = 'This password is one of the 10,000 most common passwords. Choose one that is harder to guess.';
    assert.equal(COMMON_PASSWORDS_COUNT, 10_000);
    for (const password of ['qwerty123456', 'QWERTY123456', 'Qwerty123456', '\uff51\uff57\uff45\uff52\uff54\uff59\uff11\uff12\uff13\uff14\uff15\uff16', ' qwerty123456 ']) {
      assert.equal(await passwordProblem(password, owner), common, JSON.stringify(password));
    }
    // The ranked list the package ships: its first 10,000 are refused (those of 12 characters or more can be tried), the rest are not.
    const ranked = dictionary['passwords-common'];
    const reachable = ranked.slice(0, COMMON_PASSWORDS_COUNT).filter((password) => [...password].length >= 12);
    assert.ok(reachable.length > 0);
    for (const password of reachable) assert.equal(await passwordProblem(password, owner), common, password);
    const beyond = ranked.slice(COMMON_PASSWORDS_COUNT).find((password) => [...password].length >= 12 && !ranked.slice(0, COMMON_PASSWORDS_COUNT).includes(password));
    assert.ok(beyond !== undefined);
    assert.equal(await passwordProblem(beyond, owner), undefined, beyond);
  });

  test('when a password is the user’s own email, its local part or their store name, in any case, then it is refused', async () => {
    const owner = { email: 'ann.longname@example.com', storeName: 'Main Street Pets' };
    assert.equal(await passwordProblem('Ann.Longname@Example.com', owner), 'Your password cannot be your email address.');
    assert.equal(await passwordProblem('ANN.LONGNAME', owner), 'Your password cannot be your email address.');
    assert.equal(await passwordProblem('main street pets', owner), 'Your password cannot be your store name.');
    assert.equal(await passwordProblem('MainStreetPets', owner), 'Your password cannot be your store name.', 'spaces do not make it another password');
    assert.equal(await passwordProblem('main street pets forever', owner), undefined, 'containing it is allowed');
    assert.equal(await passwordProblem('main street pets', { email: owner.email }), undefined, 'without a store name, only the email counts');
  });
});
