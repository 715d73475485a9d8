import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ConfigError, loadConfig } from '../../../src/config/config.js';

describe('cursor secret configuration', () => {
  test('when CURSOR_SECRET is unset, then no secret is configured (the database-held key is used)', () => {
    assert.deepEqual(loadConfig({}, '/srv').cursorSecrets, []);
  });

  test('when CURSOR_SECRET and CURSOR_SECRET_PREVIOUS are set, then the current key signs and all verify', () => {
    const current = 'c'.repeat(64);
    const previous = ['p'.repeat(32), 'q'.repeat(40)];
    const config = loadConfig({ CURSOR_SECRET: current, CURSOR_SECRET_PREVIOUS: previous.join(',') }, '/srv');
    assert.deepEqual(config.cursorSecrets, [current, ...previous]);
    assert.ok(Object.isFrozen(config.cursorSecrets));
  });

  test('when a cursor secret is short, has spaces, or PREVIOUS comes without CURSOR_SECRET, then a ConfigError that never shows the secret', () => {
    const cases = [
      { CURSOR_SECRET: 'short-secret-123' },
      { CURSOR_SECRET: `${'a'.repeat(20)} ${'b'.repeat(20)}` },
      { CURSOR_SECRET: 'c'.repeat(40), CURSOR_SECRET_PREVIOUS: 'tiny-old-secret' },
      { CURSOR_SECRET_PREVIOUS: 'p'.repeat(40) },
    ];
    for (const env of cases) {
      assert.throws(
        () => loadConfig(env, '/srv'),
        (error: unknown) => {
          assert.ok(error instanceof ConfigError);
          assert.match(error.message, /CURSOR_SECRET/);
          for (const value of Object.values(env)) assert.ok(!error.message.includes(value.split(',')[0] ?? ''), 'secret echoed');
          return true;
        },
      );
    }
  });
});
