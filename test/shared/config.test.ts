import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, test } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config/config.js';

describe('configuration', () => {
  test('when the environment is empty, then the documented defaults apply', () => {
    const config = loadConfig({}, '/srv/app');
    assert.deepEqual(config, {
      host: '127.0.0.1',
      port: 3000,
      logLevel: 'info',
      environment: 'production',
      shutdownGraceMs: 10000,
      database: { kind: 'sqlite', path: path.resolve('/srv/app', 'data/store.db'), synchronous: 'full' },
    });
    assert.ok(Object.isFrozen(config));
  });

  test('when values are set, then they are parsed', () => {
    const config = loadConfig(
      { PORT: '0', HOST: '0.0.0.0', DATABASE_URL: 'sqlite:/var/lib/store.db', LOG_LEVEL: 'warn', STORE_ENVIRONMENT: 'staging', SHUTDOWN_GRACE_MS: '500' },
      '/srv/app',
    );
    assert.equal(config.port, 0);
    assert.equal(config.host, '0.0.0.0');
    assert.deepEqual(config.database, { kind: 'sqlite', path: '/var/lib/store.db', synchronous: 'full' });
    assert.equal(config.logLevel, 'warn');
    assert.equal(config.environment, 'staging');
    assert.equal(config.shutdownGraceMs, 500);
  });

  test('when several values are invalid, then one ConfigError names every problem and never echoes DATABASE_URL', () => {
    assert.throws(
      () => loadConfig({ PORT: '70000', LOG_LEVEL: 'loud', STORE_ENVIRONMENT: 'prod', DATABASE_URL: 'mysql://user:hunter2@db/x', HOST: 'a b' }),
      (error: unknown) => {
        assert.ok(error instanceof ConfigError);
        assert.equal(error.problems.length, 5);
        assert.match(error.message, /PORT/);
        assert.match(error.message, /LOG_LEVEL/);
        assert.match(error.message, /STORE_ENVIRONMENT/);
        assert.match(error.message, /HOST/);
        assert.match(error.message, /DATABASE_URL scheme "mysql:" is not supported/);
        assert.ok(!error.message.includes('hunter2'));
        return true;
      },
    );
    for (const PORT of ['abc', '-1', '1.5', '3000x']) assert.throws(() => loadConfig({ PORT }), ConfigError, PORT);
    for (const DATABASE_URL of ['sqlite:', 'sqlite::memory:', 'store.db']) assert.throws(() => loadConfig({ DATABASE_URL }), ConfigError, DATABASE_URL);
  });
});
