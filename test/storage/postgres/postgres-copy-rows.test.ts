/**
 * COPY's binary format as the import writes it (copyRows, CopyIn): every
 * value comes back from a COPY exactly as it was written, on a real server,
 * inside one transaction, into a table that is gone after the commit.
 */
import assert from 'node:assert/strict';
import { describe, test, type TestContext } from 'node:test';
import fc from 'fast-check';
import { createPostgresPool, type PostgresPool } from '../../../src/storage/postgres/postgres-pool.js';
import { copyRows } from '../../../src/storage/postgres/postgres-copy-rows.js';
import { isoTimestamp } from '../../../src/storage/postgres/postgres-sql.js';
import { postgresBackend } from '../../support/storage.js';

/** Pieces COPY's text format would give a meaning to, and CSV's. */
const HOSTILE = fc.constantFrom('\\', '\t', '\n', '\r', '\r\n', '\\N', '\\.', '\\t', '"', ',', "'", ' ', '', '€', '𝄞');
/** Any text PostgreSQL stores (it has no NUL), hostile pieces mixed in. */
const TEXT = fc
  .array(fc.oneof(HOSTILE, fc.string({ unit: 'binary', maxLength: 20 })), { maxLength: 8 })
  .map((parts) => parts.join(''))
  .filter((text) => !text.includes('\u0000'));
const INT64 = fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n });
/** Instants from year 1 to 9999, as toISOString writes them. */
const INSTANT = fc.integer({ min: Date.parse('0001-01-01T00:00:00.000Z'), max: Date.parse('9999-12-31T23:59:59.999Z') }).map((ms) => new Date(ms).toISOString());

interface Row {
  text: string | undefined;
  big: bigint | undefined;
  small: number | undefined;
  safe: number;
  flag: boolean;
  at: string | undefined;
}

const ROW = fc.record({
  text: fc.option(TEXT, { nil: undefined }),
  big: fc.option(INT64, { nil: undefined }),
  small: fc.option(fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }), { nil: undefined }),
  safe: fc.oneof(fc.constantFrom(Number.MIN_SAFE_INTEGER, -1, 0, 2 ** 32, Number.MAX_SAFE_INTEGER), fc.maxSafeInteger()),
  flag: fc.boolean(),
  at: fc.option(INSTANT, { nil: undefined }),
});

async function poolOf(t: TestContext): Promise<PostgresPool> {
  const { config } = await postgresBackend.freshDatabase(t, { migrate: false });
  if (config.kind !== 'postgres') throw new Error('a PostgreSQL database was expected');
  const pool = createPostgresPool({ url: config.url, poolSize: 1 });
  t.after(() => pool.end());
  return pool;
}

/** The rows through COPY … FROM STDIN (FORMAT binary) into a table of this transaction, and back in their order. */
async function roundTrip(pool: PostgresPool, rows: readonly Row[]): Promise<Row[]> {
  return pool.transaction(async (tx, copyIn) => {
    await tx('CREATE TEMP TABLE copied (position int8, text text, big int8, small int4, safe int8, flag bool, at timestamptz) ON COMMIT DROP');
    const written = copyRows();
    for (const [position, row] of rows.entries()) {
      written.row(7);
      written.int8(position);
      written.text(row.text);
      written.int8(row.big);
      written.int4(row.small);
      written.int8(row.safe);
      written.bool(row.flag);
      written.timestamptz(row.at);
    }
    await copyIn('COPY copied FROM STDIN (FORMAT binary)', written.done());
    const back = await tx<{ text: string | null; big: bigint | null; small: number | null; safe: bigint; flag: boolean; at: string | null }>(
      `SELECT text, big, small, safe, flag, ${isoTimestamp('at')} FROM copied ORDER BY position`,
    );
    return back.map((row) => ({ text: row.text ?? undefined, big: row.big ?? undefined, small: row.small ?? undefined, safe: Number(row.safe), flag: row.flag, at: row.at ?? undefined }));
  });
}

describe('PostgreSQL COPY rows (binary)', () => {
  test('when texts, int64s, int32s, booleans, instants and nulls are sent by COPY, then each comes back exactly, and the table is dropped at commit', async (t) => {
    const pool = await poolOf(t);
    await fc.assert(
      fc.asyncProperty(fc.array(ROW, { minLength: 1, maxLength: 30 }), async (rows) => {
        // fast-check's records have no prototype; the rows read back are plain objects.
        assert.deepEqual(await roundTrip(pool, rows), rows.map((row) => ({ ...row })));
      }),
      { numRuns: 60 },
    );
    assert.deepEqual(await pool.sql("SELECT 1 FROM pg_class WHERE relname = 'copied'"), []);
  });

  test('when the rows fill more than one buffer, some values longer than a buffer, then every row comes back whole and in order', async (t) => {
    const pool = await poolOf(t);
    // Three bytes a character in UTF-8: 2,000 rows of 300 (1.8 MB), two of a million among them.
    const rows = Array.from({ length: 2000 }, (_, i): Row => ({
      text: `${i}€`.padEnd(i === 700 || i === 1500 ? 1_000_000 : 300, '€'),
      big: BigInt(i),
      small: i,
      safe: i,
      flag: i % 2 === 0,
      at: '2026-12-01T10:00:00.000Z',
    }));
    const back = await roundTrip(pool, rows);
    assert.equal(back.length, rows.length);
    assert.ok(back.every((row, i) => row.text === rows[i]?.text && row.big === rows[i]?.big));
  });

  test('when an instant has no zone or more than milliseconds, then it is refused rather than read in a local zone or rounded; other ISO 8601 forms are read exactly', async (t) => {
    for (const instant of ['2026-12-01T10:00:00', '2026-12-01T10:00:00.000123Z', 'Dec 1, 2026 10:00', 'tomorrow', '']) {
      assert.throws(() => copyRows().timestamptz(instant), /not an ISO 8601 instant with a zone and at most milliseconds/, instant);
    }
    const pool = await poolOf(t);
    const forms = ['2026-12-01T10:00Z', '2026-12-01T10:00:00Z', '2026-12-01T11:00:00.000+01:00', '2026-12-01T05:30:00.5-04:30'];
    const back = await roundTrip(pool, forms.map((at) => ({ text: undefined, big: undefined, small: undefined, safe: 0, flag: false, at })));
    assert.deepEqual(back.map((row) => row.at), ['2026-12-01T10:00:00.000Z', '2026-12-01T10:00:00.000Z', '2026-12-01T10:00:00.000Z', '2026-12-01T10:00:00.500Z']);
  });
});
