import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { generateApiKey } from '../../src/api-keys/api-key-format.js';
import { createStoredForm, storablePath } from '../../src/request-logs/request-log-entries.js';
import { createCaptureBuffer, type CapturedColumns, type CapturedRequest } from '../../src/request-logs/request-log-buffer.js';
import { uuidText } from '../../src/request-logs/request-id-words.js';
import { entriesOf } from '../../src/request-logs/stored-requests.js';
import { createRequestLogRecorder } from '../../src/request-logs/request-log-recorder.js';
import type { NewRequestLog } from '../../src/request-logs/request-logs-repository.js';
import { systemClock } from '../../src/shared/clock.js';

const captured = (fields: Partial<CapturedRequest> = {}): CapturedRequest => ({
  at: Date.parse('2026-11-27T10:00:00.000Z'),
  method: 'GET',
  url: '/v1/store/orders',
  status: 200,
  durationMs: 1.23456,
  requestId: 'r1',
  accountId: 1,
  keyId: 2,
  clientAddress: '203.0.113.7',
  userAgent: 'ua',
  errorBody: undefined,
  ...fields,
});

/** Captured requests as the recorder stores them: through the capture buffer, then the stored form. */
const storedAll = (requests: CapturedRequest[], toStored = createStoredForm()): NewRequestLog[] => {
  const buffer = createCaptureBuffer();
  for (const request of requests) buffer.push(request);
  return entriesOf(toStored(buffer.peek(requests.length)));
};
const stored = (request: CapturedRequest): NewRequestLog => storedAll([request])[0] as NewRequestLog;

/** A peek's columns as the requests captured. */
const capturedOf = (columns: CapturedColumns): CapturedRequest[] =>
  Array.from({ length: columns.length }, (_, n) => {
    const keyId = columns.keyId[n] as number;
    return {
      at: columns.at[n] as number,
      method: columns.method[n] as string,
      url: columns.url[n] as string,
      status: columns.status[n] as number,
      durationMs: columns.durationMs[n] as number,
      requestId: columns.requestId[n] ?? uuidText(columns.uuids, n * 4),
      accountId: columns.accountId[n] as number,
      keyId: Number.isNaN(keyId) ? undefined : keyId,
      clientAddress: columns.clientAddress[n],
      userAgent: columns.userAgent[n],
      errorBody: columns.errorBody[n],
    };
  });

describe('the stored form of a request', () => {
  test('when a query carries secret-named parameters, then their values are redacted and the others kept', () => {
    assert.equal(
      storablePath('/v2/store/orders?status=pending&access_token=abc&API_KEY=x&client_secret=y&password=p&sig=s&limit=5&flag'),
      '/v2/store/orders?status=pending&access_token=[redacted]&API_KEY=[redacted]&client_secret=[redacted]&password=[redacted]&sig=[redacted]&limit=5&flag',
    );
    assert.equal(storablePath('/v1/store/orders'), '/v1/store/orders');
    assert.equal(storablePath(`/x?${'a'.repeat(5000)}`).length, 2048);
  });

  test('when an API key appears anywhere in the URL, plain or percent-encoded, then the stored path never holds it', () => {
    const keys = fc.constantFrom(...Array.from({ length: 8 }, () => generateApiKey(Math.random() < 0.5 ? 'production' : 'staging').key));
    const text = fc.string({ unit: fc.constantFrom('a', 'b', '/', '-', '_', '.', '~', '0') , maxLength: 12 });
    fc.assert(
      fc.property(keys, text, text, fc.constantFrom('path', 'value', 'name'), fc.boolean(), (key, before, after, where, encode) => {
        const shown = encode ? encodeURIComponent(key).replace(/_/g, '%5F') : key;
        const url = where === 'path' ? `/v1/${before}${shown}${after}` : where === 'value' ? `/v1/x?note=${before}${shown}${after}` : `/v1/x?${before}${shown}=1`;
        const stored = storablePath(url);
        assert.ok(!stored.includes(key.slice(8)), `${url} -> ${stored}`);
      }),
    );
  });

  test('when an error answer is captured, then its body is kept with its code; a 2xx keeps none', () => {
    const body = '{"code":"order_not_found","message":"Order 9 does not exist.","status":404}';
    const error: NewRequestLog = stored(captured({ status: 404, errorBody: body, url: '/v2/store/orders/9' }));
    assert.deepEqual(error, {
      accountId: 1,
      at: '2026-11-27T10:00:00.000Z',
      method: 'GET',
      path: '/v2/store/orders/9',
      status: 404,
      durationMs: 1.235,
      requestId: 'r1',
      apiVersion: 'v2',
      keyId: 2,
      clientAddress: '203.0.113.7',
      userAgent: 'ua',
      errorBody: body,
      errorCode: 'order_not_found',
    });
    assert.equal(stored(captured({ status: 200, errorBody: '{}' })).errorBody, undefined);
    assert.equal(stored(captured({ url: '/healthz' })).apiVersion, undefined);
  });

  test('when a user agent or an error body carries an API key, then the stored form holds neither the key nor any part of its secret', () => {
    const { key } = generateApiKey('production');
    const [agent, error] = storedAll([captured({ userAgent: `sdk/1 (${key})` }), captured({ status: 401, errorBody: `{"code":"unauthorized","status":401,"message":"${key}"}` })]);
    for (const text of [agent?.userAgent, error?.errorBody]) {
      assert.ok(text !== undefined && text.length > 0);
      assert.ok(!text.includes(key.slice(-20)), text);
    }
  });

  test('when requests arrive within, across and out of order of milliseconds, then each is stored with the time of its own millisecond', () => {
    const start = Date.parse('2026-11-27T23:59:59.990Z');
    // Fractional arrivals (now minus a duration), a few milliseconds apart, in any order, as a batch holds them.
    const arrivals = fc.array(fc.double({ min: start, max: start + 30, noNaN: true }), { minLength: 1, maxLength: 50 });
    fc.assert(
      fc.property(arrivals, (times) => {
        const entries = storedAll(times.map((at) => captured({ at })));
        times.forEach((at, n) => assert.equal(entries[n]?.at, new Date(at).toISOString(), String(at)));
      }),
    );
  });

  test('when storage fails, then the batch is kept for the next flush, ahead of what came since, and the buffer stays bounded', async () => {
    const written: NewRequestLog[][] = [];
    let failing = true;
    const recorder = createRequestLogRecorder({
      requestLogsRepository: {
        append: async (requests) => {
          if (failing) throw new Error('database down');
          written.push(entriesOf(requests));
        },
      },
      clock: systemClock,
      enabled: true,
      maxBuffered: 10,
    });
    recorder.capture(captured({ requestId: 'a' }));
    await assert.rejects(recorder.flush(), /database down/);
    recorder.capture(captured({ requestId: 'b' }));
    failing = false;
    await recorder.flush();
    assert.deepEqual(written.map((batch) => batch.map((entry) => entry.requestId)), [['a', 'b']]);

    for (let i = 0; i < 25; i++) recorder.capture(captured({ requestId: `n${i}` }));
    assert.equal(recorder.dropped(), 15);
    await recorder.stop();
    assert.deepEqual(written[1]?.map((entry) => entry.requestId), Array.from({ length: 10 }, (_, i) => `n${i + 15}`));
  });
});

/** A UUID in randomUUID()'s form, a different one for each i, with every hexadecimal digit in use (and ffffffff words). */
const uuidOf = (i: number): string => {
  const hex = (Math.imul(i + 1, 0x9e3779b1) >>> 0).toString(16).padStart(8, '0') + (i % 11 === 0 ? 'ffffffff' : '0123456789abcdef'.repeat(2).slice(i % 9, (i % 9) + 8)) + 'fedcba9876543210' + (i >>> 0).toString(16).padStart(8, '0');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
};

describe('the capture buffer (column by column)', () => {
  test('when requests are pushed, peeked, released and dropped in any order, through growth and around its ring, then it holds exactly what a plain queue would, fields intact', () => {
    type Op = { push: number } | { peek: number; release: boolean } | { drop: number };
    const op = fc.oneof(
      { arbitrary: fc.record({ push: fc.integer({ min: 1, max: 1500 }) }), weight: 3 },
      { arbitrary: fc.record({ peek: fc.integer({ min: 1, max: 900 }), release: fc.boolean() }), weight: 2 },
      { arbitrary: fc.record({ drop: fc.integer({ min: 1, max: 400 }) }), weight: 1 },
    );
    fc.assert(
      fc.property(fc.array(op as fc.Arbitrary<Op>, { maxLength: 30 }), (ops) => {
        const buffer = createCaptureBuffer();
        let model: CapturedRequest[] = [];
        let n = 0;
        const make = (i: number): CapturedRequest =>
          captured({
            at: 1_795_000_000_000 + i / 7,
            // Ours (randomUUID's form, held as numbers), a client's, and near misses held as text.
            requestId: [uuidOf(i), `r${i}`, uuidOf(i).toUpperCase(), `${uuidOf(i).slice(0, 35)}g`, uuidOf(i).replace(/-/g, '_'), `${uuidOf(i)}0`][i % 6] as string,
            url: `/v1/store/orders?page=${i % 3}`,
            status: i % 5 === 0 ? 404 : 200,
            durationMs: i / 16,
            accountId: 1 + (i % 2),
            keyId: i % 4 === 0 ? undefined : i % 7,
            clientAddress: i % 6 === 0 ? undefined : `10.0.0.${i % 4}`,
            userAgent: i % 9 === 0 ? undefined : `agent ${i % 2}`,
            errorBody: i % 5 === 0 ? `{"code":"not_found","status":404,"n":${i}}` : undefined,
          });
        for (const step of ops) {
          if ('push' in step) {
            for (let k = 0; k < step.push; k++) {
              const request = make(n++);
              buffer.push(request);
              model.push(request);
            }
          } else if ('peek' in step) {
            const from = buffer.head;
            const seen = capturedOf(buffer.peek(step.peek));
            assert.deepEqual(seen, model.slice(0, step.peek));
            if (step.release) {
              buffer.release(from, seen.length);
              model = model.slice(seen.length);
            }
          } else {
            const from = buffer.head;
            const inFlight = buffer.peek(50).length;
            buffer.dropOldest(step.drop);
            model = model.slice(step.drop);
            // A release of requests the bound dropped meanwhile lets go of nothing more.
            buffer.release(from, Math.min(inFlight, step.drop));
          }
          assert.equal(buffer.size, model.length);
        }
        assert.deepEqual(capturedOf(buffer.peek(model.length + 1)), model);
      }),
      { numRuns: 60 },
    );
  });
});

describe('the capture buffer around its ring', () => {
  const request = (i: number, more: Partial<CapturedRequest> = {}): CapturedRequest =>
    captured({ at: 1_795_000_000_000 + i, requestId: uuidOf(i), url: `/v1/store/orders?n=${i % 3}`, status: 200, durationMs: i / 8, accountId: 1, keyId: i % 5, ...more });

  test('when the ring wraps, grows while wrapped, and is peeked, dropped and released across the wrap, then it reads back in order', () => {
    const buffer = createCaptureBuffer();
    const model: CapturedRequest[] = [];
    let n = 0;
    const push = (count: number) => {
      for (let k = 0; k < count; k++) {
        const r = request(n++);
        buffer.push(r);
        model.push(r);
      }
    };
    // The first 1,024 slots filled, 1,000 let go: the next requests wrap to slot 0.
    push(1024);
    buffer.release(buffer.head, capturedOf(buffer.peek(1000)).length);
    model.splice(0, 1000);
    push(900);
    assert.deepEqual(capturedOf(buffer.peek(2000)), model, 'a peek across the wrap');
    // More than the ring holds while wrapped: it grows, and the held requests keep their order.
    push(1500);
    assert.deepEqual(capturedOf(buffer.peek(5000)), model, 'after growing while wrapped');
    const from = buffer.head;
    const inFlight = capturedOf(buffer.peek(30)).length;
    buffer.dropOldest(20);
    model.splice(0, 20);
    buffer.release(from, inFlight);
    model.splice(0, inFlight - 20);
    assert.equal(buffer.size, model.length);
    assert.deepEqual(capturedOf(buffer.peek(5000)), model, 'a release after a drop lets go of nothing twice');
  });

  test('when one object is pushed again with other fields (as the fast lane fills one each time), then each push keeps its own values', () => {
    const buffer = createCaptureBuffer();
    const reused = request(1, { userAgent: 'wrk/4', clientAddress: '10.0.0.1', keyId: 3 });
    const first = { ...reused };
    buffer.push(reused);
    Object.assign(reused, { at: reused.at + 5, userAgent: undefined, clientAddress: undefined, keyId: undefined, requestId: 'client-chosen', status: 304, durationMs: 0.5 });
    buffer.push(reused);
    assert.deepEqual(capturedOf(buffer.peek(2)), [first, { ...reused }]);
  });
});

describe('the recorder under its bound while a write is in flight', () => {
  for (const outcome of ['succeeds', 'fails'] as const) {
    test(`when the buffer overflows while a chunk is being written and the write ${outcome}, then the dropped count is exactly the requests never written`, async () => {
      const written: string[] = [];
      let finish: (() => void) | undefined;
      const recorder = createRequestLogRecorder({
        requestLogsRepository: {
          append: (requests) =>
            new Promise<void>((resolve, reject) => {
              finish = () => {
                if (outcome === 'fails') {
                  reject(new Error('database down'));
                  return;
                }
                written.push(...entriesOf(requests).map((entry) => entry.requestId));
                resolve();
              };
            }),
        },
        clock: systemClock,
        enabled: true,
        maxBuffered: 10,
      });
      for (let i = 0; i < 5; i++) recorder.capture(captured({ requestId: `first-${i}` }));
      const flushing = recorder.flush().catch(() => undefined);
      await new Promise((resolve) => setImmediate(resolve));
      // The five being written stay held until their write ends; twelve more overflow the bound of ten by seven.
      for (let i = 0; i < 12; i++) recorder.capture(captured({ requestId: `later-${i}` }));
      finish?.();
      await flushing;
      const held = 10;
      const total = 17;
      const neverWritten = total - written.length - held;
      assert.equal(recorder.dropped(), outcome === 'succeeds' ? neverWritten : total - held);
      if (outcome === 'succeeds') assert.deepEqual(written, ['first-0', 'first-1', 'first-2', 'first-3', 'first-4']);
    });
  }
});
