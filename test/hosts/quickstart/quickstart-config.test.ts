import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ConfigError, loadConfig } from '../../../src/config/config.js';

const problemsOf = (env: Record<string, string>): readonly string[] => {
  try {
    loadConfig(env, '/srv');
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  return [];
};

describe('quickstart and messages configuration', () => {
  test('when nothing is set, then the quickstart host is on 3001 with the documented public URL and no webhook', () => {
    const config = loadConfig({}, '/srv');
    assert.deepEqual(config.quickstart, { port: 3001, publicUrl: 'https://quickstart.store.example.com' });
    assert.equal(config.messages.webhookUrl, undefined);
    assert.deepEqual(
      { ...config.messages },
      { webhookTimeoutMs: 10000, retryBaseMs: 1000, retryMaxMs: 300000, maxAttempts: 10, pollIntervalMs: 1000 },
    );
    assert.ok(Object.isFrozen(config.quickstart) && Object.isFrozen(config.messages));
  });

  test('when QUICKSTART_PORT is off (any case), then the quickstart host is disabled', () => {
    assert.equal(loadConfig({ QUICKSTART_PORT: 'off' }, '/srv').quickstart, null);
    assert.equal(loadConfig({ QUICKSTART_PORT: 'OFF' }, '/srv').quickstart, null);
  });

  test('when QUICKSTART_PUBLIC_URL and the webhook are set, then they are used (trailing slash dropped)', () => {
    const config = loadConfig(
      { QUICKSTART_PORT: '8081', QUICKSTART_PUBLIC_URL: 'https://quickstart.example.com/', MESSAGES_WEBHOOK_URL: 'https://hooks.example.com/in?token=abc' },
      '/srv',
    );
    assert.deepEqual(config.quickstart, { port: 8081, publicUrl: 'https://quickstart.example.com' });
    assert.equal(config.messages.webhookUrl, 'https://hooks.example.com/in?token=abc');
  });

  test('when the values are wrong, then every problem is reported and the webhook URL is not echoed', () => {
    const problems = problemsOf({
      QUICKSTART_PORT: '70000',
      MESSAGES_WEBHOOK_URL: 'ftp://user:hunter2@example.com',
      MESSAGES_RETRY_BASE_MS: '0',
      MESSAGES_MAX_ATTEMPTS: 'many',
      MESSAGES_POLL_INTERVAL_MS: '1',
    });
    assert.equal(problems.length, 5, problems.join('\n'));
    assert.ok(problems.some((p) => p.startsWith('QUICKSTART_PORT')));
    assert.ok(!problems.join('\n').includes('hunter2'));
  });

  test('when the retry cap is below the base, or the public URL is not http(s), then it is refused', () => {
    assert.equal(problemsOf({ MESSAGES_RETRY_BASE_MS: '5000', MESSAGES_RETRY_MAX_MS: '100' }).length, 1);
    assert.equal(problemsOf({ QUICKSTART_PUBLIC_URL: 'quickstart.example.com' }).length, 1);
  });
});
