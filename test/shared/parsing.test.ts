import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { INT64_MAX, INT64_MIN, parseInt64 } from '../../src/shared/int64.js';
import { normalizeDateTime } from '../../src/shared/date-time.js';

describe('parseInt64', () => {
  test('when given the canonical text of any int64, then it returns exactly that value', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: INT64_MIN, max: INT64_MAX }), (value) => {
        assert.equal(parseInt64(value.toString()), value);
      }),
    );
    assert.equal(parseInt64('9007199254740993'), 9007199254740993n);
  });

  test('when given a number outside int64, then undefined', () => {
    fc.assert(
      fc.property(fc.oneof(fc.bigInt({ min: INT64_MAX + 1n, max: 10n ** 30n }), fc.bigInt({ min: -(10n ** 30n), max: INT64_MIN - 1n })), (value) => {
        assert.equal(parseInt64(value.toString()), undefined);
      }),
    );
  });

  test('when given any string that is not a canonical decimal, then undefined', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (text) => {
        const result = parseInt64(text);
        if (result !== undefined) assert.equal(result.toString(), text);
      }),
    );
    for (const text of ['', ' 1', '1 ', '+1', '01', '-0', '1.0', '1e3', '0x1', '١', 'NaN', 'Infinity', '--1']) {
      assert.equal(parseInt64(text), undefined, JSON.stringify(text));
    }
  });
});

describe('normalizeDateTime', () => {
  test('when given any instant as RFC 3339 with an offset, then it returns the same instant in UTC with milliseconds', () => {
    fc.assert(
      fc.property(
        fc.date({ min: new Date('0001-01-02T00:00:00Z'), max: new Date('9999-12-30T00:00:00Z'), noInvalidDate: true }),
        fc.integer({ min: -14 * 60, max: 14 * 60 }),
        (date, offsetMinutes) => {
          const local = new Date(date.getTime() + offsetMinutes * 60_000).toISOString().slice(0, 23);
          const sign = offsetMinutes < 0 ? '-' : '+';
          const abs = Math.abs(offsetMinutes);
          const offset = `${sign}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
          assert.equal(normalizeDateTime(`${local}${offset}`), date.toISOString());
        },
      ),
    );
  });

  test('when the text is not a complete, real date-time with a zone, then undefined', () => {
    for (const text of ['2026-12-01', '2026-12-01T10:00:00', '2026-13-01T00:00:00Z', '2026-02-29T00:00:00Z', '2026-12-01T24:00:00Z', '2026-12-01T10:60:00Z', 'now', '']) {
      assert.equal(normalizeDateTime(text), undefined, text);
    }
    assert.equal(normalizeDateTime('2028-02-29T00:00:00Z'), '2028-02-29T00:00:00.000Z');
  });
});
