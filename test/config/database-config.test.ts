import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config/config.js';

const SECRET = 's3cr3t-Pa55';

describe('database configuration', () => {
  test('when DATABASE_URL is postgres:// or postgresql://, then PostgreSQL is selected with a pool of 10', () => {
    for (const url of [`postgres://store:${SECRET}@db.internal:5432/store`, `postgresql://store:${SECRET}@db.internal/store?sslmode=require`]) {
      assert.deepEqual(loadConfig({ DATABASE_URL: url }).database, { kind: 'postgres', url, poolSize: 10 });
    }
  });

  test('when DATABASE_POOL_SIZE is set, then it sizes the pool; when it is not 1 to 1000, then it is refused', () => {
    const url = 'postgres://db.internal/store';
    assert.deepEqual(loadConfig({ DATABASE_URL: url, DATABASE_POOL_SIZE: '25' }).database, { kind: 'postgres', url, poolSize: 25 });
    for (const DATABASE_POOL_SIZE of ['0', '1001', '-3', '2.5', 'ten']) {
      assert.throws(() => loadConfig({ DATABASE_URL: url, DATABASE_POOL_SIZE }), (error: unknown) => {
        assert.ok(error instanceof ConfigError);
        assert.match(error.message, /DATABASE_POOL_SIZE must be an integer from 1 to 1000/);
        return true;
      });
    }
  });

  test('when a postgres URL is malformed or names no host, then the problem is reported without the URL', () => {
    for (const DATABASE_URL of [`postgres://store:${SECRET}@[bad/store`, `postgres:store:${SECRET}`, `postgresql:///store?password=${SECRET}`]) {
      assert.throws(() => loadConfig({ DATABASE_URL }), (error: unknown) => {
        assert.ok(error instanceof ConfigError, DATABASE_URL);
        assert.match(error.message, /DATABASE_URL/);
        assert.ok(!error.message.includes(SECRET), error.message);
        return true;
      });
    }
  });

  test('when SQLITE_SYNCHRONOUS is unset, then it is full; normal is accepted; anything else is refused', () => {
    assert.equal(loadConfig({ DATABASE_URL: 'sqlite:/tmp/x.db' }).database.kind, 'sqlite');
    assert.deepEqual(loadConfig({ DATABASE_URL: 'sqlite:/tmp/x.db' }).database, { kind: 'sqlite', path: '/tmp/x.db', synchronous: 'full' });
    assert.deepEqual(loadConfig({ DATABASE_URL: 'sqlite:/tmp/x.db', SQLITE_SYNCHRONOUS: 'NORMAL' }).database, {
      kind: 'sqlite',
      path: '/tmp/x.db',
      synchronous: 'normal',
    });
    assert.throws(() => loadConfig({ SQLITE_SYNCHRONOUS: 'off' }), /SQLITE_SYNCHRONOUS must be one of full, normal/);
  });
});
