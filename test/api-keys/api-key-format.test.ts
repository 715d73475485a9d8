import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { checkApiKey, generateApiKey, hashApiKey, redactApiKeys } from '../../src/api-keys/api-key-format.js';

describe('API key format', () => {
  test('when keys are generated, then they carry the environment prefix, 36 base62 characters and pass their own check', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 200; i++) {
      for (const environment of ['production', 'staging'] as const) {
        const { key, hash, start } = generateApiKey(environment);
        assert.match(key, environment === 'production' ? /^so_prod_[0-9A-Za-z]{36}$/ : /^so_stg_[0-9A-Za-z]{36}$/);
        assert.deepEqual(checkApiKey(key, environment), { ok: true, hash });
        assert.equal(hash, hashApiKey(key));
        assert.match(hash, /^[0-9a-f]{64}$/);
        assert.ok(key.startsWith(start) && start.length < 16);
        assert.ok(!seen.has(key));
        seen.add(key);
      }
    }
  });

  test('when any single character of a key changes, then the checksum or shape check refuses it', () => {
    const alphabet = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 43 }), fc.constantFrom(...alphabet.split('')), (position, replacement) => {
        const { key } = generateApiKey('production');
        const changed = key.slice(0, position) + replacement + key.slice(position + 1);
        fc.pre(changed !== key);
        assert.equal(checkApiKey(changed, 'production').ok, false);
      }),
      { numRuns: 2000 },
    );
  });

  test('when a key of the other environment is presented, then it is refused as wrong_environment', () => {
    const staging = generateApiKey('staging').key;
    assert.deepEqual(checkApiKey(staging, 'production'), { ok: false, reason: 'wrong_environment', keyEnvironment: 'staging' });
  });

  test('when arbitrary strings are checked, then only well-formed keys pass and nothing throws', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 200 }), (text) => {
        assert.equal(checkApiKey(text, 'production').ok, false);
      }),
    );
  });

  test('when text contains keys, then redaction removes every one', () => {
    const a = generateApiKey('production').key;
    const b = generateApiKey('staging').key;
    const text = `/v1/x/${a}?k=${b}&so_prod_short`;
    const redacted = redactApiKeys(text);
    assert.ok(!redacted.includes(a) && !redacted.includes(b) && !redacted.includes('so_prod_short'));
    assert.ok(redacted.startsWith('/v1/x/[redacted-api-key]'));
  });
});
