/**
 * COPY's text format as the import writes it (copyValue, CopyIn): any
 * string PostgreSQL can hold comes back from a COPY exactly as it was sent,
 * on a real server, inside one transaction, with a staging table that is
 * gone after the commit.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { createPostgresPool } from '../../../src/storage/postgres/postgres-pool.js';
import { copyValue } from '../../../src/storage/postgres/postgres-sql.js';
import { postgresBackend } from '../../support/storage.js';

/** Pieces COPY's text format gives a meaning to, and the ones CSV would. */
const HOSTILE = fc.constantFrom('\\', '\t', '\n', '\r', '\r\n', '\\N', '\\.', '\\t', '"', ',', "'", ' ', '');
/** Any text PostgreSQL stores (it has no NUL), hostile pieces mixed in. */
const TEXT = fc
  .array(fc.oneof(HOSTILE, fc.string({ unit: 'binary', maxLength: 20 })), { maxLength: 8 })
  .map((parts) => parts.join(''))
  .filter((text) => !text.includes('\u0000'));

describe('PostgreSQL COPY text', () => {
  test('when hostile strings and nulls are sent by COPY, then each comes back exactly, and the staging table is dropped at commit', async (t) => {
    const { config } = await postgresBackend.freshDatabase(t, { migrate: false });
    if (config.kind !== 'postgres') throw new Error('a PostgreSQL database was expected');
    const pool = createPostgresPool({ url: config.url, poolSize: 1 });
    t.after(() => pool.end());
    await fc.assert(
      fc.asyncProperty(fc.array(fc.option(TEXT, { nil: null }), { minLength: 1, maxLength: 30 }), async (values) => {
        const back = await pool.transaction(async (tx, copyIn) => {
          await tx('CREATE TEMP TABLE copied (position integer, value text) ON COMMIT DROP');
          await copyIn('COPY copied FROM STDIN', values.map((value, i) => `${i}\t${copyValue(value)}\n`).join(''));
          return tx<{ value: string | null }>('SELECT value FROM copied ORDER BY position');
        });
        assert.deepEqual(back.map((row) => row.value), values);
      }),
      { numRuns: 60 },
    );
    assert.deepEqual(await pool.sql("SELECT 1 FROM pg_class WHERE relname = 'copied'"), []);
  });
});
