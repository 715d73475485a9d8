/**
 * The statement timeout holds on a direct connection and through PgBouncer in
 * transaction pooling mode, which refuses it as a startup parameter: migrate
 * makes it the role's default in the database (which reaches single
 * statements without a round trip of their own) and every transaction
 * restates it with SET LOCAL.
 */
import assert from 'node:assert/strict';
import { describe, test, type TestContext } from 'node:test';
import pg from 'pg';
import { UnavailableError } from '../../../src/errors/errors.js';
import { sqlState } from '../../../src/storage/postgres/postgres-errors.js';
import { createPostgresPool } from '../../../src/storage/postgres/postgres-pool.js';
import { openPostgresStorage } from '../../../src/storage/postgres/postgres-storage.js';
import { storageBackends, type TestBackend } from '../../support/storage.js';

const TIMEOUT_MS = 200;

/** The server cancelled the statement for its timeout (SQLSTATE 57014), reported as the API's 503. */
const cancelledByTimeout = (error: unknown) => error instanceof UnavailableError && sqlState(error.cause) === '57014';

/** A fresh database migrated by a storage configured with the small timeout, and that storage's pool. */
async function migratedWithSmallTimeout(t: TestContext, backend: TestBackend): Promise<{ url: string; pool: ReturnType<typeof createPostgresPool> }> {
  const { config } = await backend.freshDatabase(t, { migrate: false });
  assert.equal(config.kind, 'postgres');
  const storage = openPostgresStorage(config, { statementTimeoutMs: TIMEOUT_MS });
  t.after(() => storage.close());
  await storage.migrate();
  const pool = createPostgresPool({ url: config.url, poolSize: 2, statementTimeoutMs: TIMEOUT_MS });
  t.after(() => pool.end());
  return { url: config.url, pool };
}

for (const backend of storageBackends({ postgresDirect: true }).filter((b) => b.name !== 'sqlite')) {
  describe(`statement timeout (${backend.name})`, () => {
    test('when a single statement or a transaction runs past the configured timeout, then the server cancels it', async (t) => {
      const { pool } = await migratedWithSmallTimeout(t, backend);
      // More than the pool holds, so that the migrating session (which a pooler reuses first) and new ones all serve.
      for (let i = 0; i < 3; i++) {
        const started = Date.now();
        await assert.rejects(pool.sql('SELECT pg_sleep(5)'), cancelledByTimeout);
        assert.ok(Date.now() - started < 3000, `cut off after ${Date.now() - started} ms`);
      }
      await Promise.all(Array.from({ length: 3 }, () => assert.rejects(pool.sql('SELECT pg_sleep(5)'), cancelledByTimeout)));
      await assert.rejects(
        pool.transaction((sql) => sql('SELECT pg_sleep(5)')),
        cancelledByTimeout,
      );
      assert.deepEqual(await pool.sql('SELECT 1 AS one'), [{ one: 1 }], 'the pool works on afterwards');
    });

    test('when migrate has run, then a new session of the role starts with the timeout, and migrate itself is exempt', async (t) => {
      const { url } = await migratedWithSmallTimeout(t, backend);
      const plain = new pg.Client({ connectionString: url });
      // Dropping the test database at teardown ends this connection from the server side.
      plain.on('error', () => undefined);
      await plain.connect();
      t.after(() => plain.end().catch(() => undefined));
      const { rows } = await plain.query<{ statement_timeout: string }>('SHOW statement_timeout');
      assert.deepEqual(rows, [{ statement_timeout: `${TIMEOUT_MS}ms` }]);

      // A second migrate (nothing to apply) still runs, with the small timeout already the role's default.
      const again = openPostgresStorage({ url, poolSize: 1 }, { statementTimeoutMs: TIMEOUT_MS });
      t.after(() => again.close());
      assert.deepEqual((await again.migrate()).applied, []);
    });
  });
}
