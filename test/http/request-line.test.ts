/**
 * A request's log line written by request-line.ts is the line pino writes
 * for the same request through a child logger labelled with its request id,
 * byte for byte but for the time; and a logger doing more than that (a
 * mixin, as while tracing) has its line written by pino itself.
 */
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { test } from 'node:test';
import { pino } from 'pino';
import { createLogger, requestLineWriter } from '../../src/http/logging.js';

function capture(): { stream: Writable; lines: string[] } {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(...chunk.toString('utf8').split('\n').filter((line) => line !== ''));
      done();
    },
  });
  return { stream, lines };
}

const untimed = (line: string) => line.replace(/"time":\d+/, '"time":0');

const requests = [
  { method: 'GET', url: '/v1/store/orders', socket: { remoteAddress: '127.0.0.1' } },
  { method: 'DELETE', url: '/v1/store/orders/12?api_key=so_prod_x&limit=5', socket: { remoteAddress: '::ffff:203.0.113.7' } },
  { method: 'GET', url: '/v2/store/orders?note="quoted"\\back\u0001', socket: { remoteAddress: undefined } },
  { method: undefined, url: undefined, socket: undefined },
  { method: 'GET', url: '/v1/pets/ünïcödé', socket: { remoteAddress: '10.0.0.1' } },
] as const;

test('when a request completes, then its line is the one pino writes through a child logger, byte for byte but the time, for every shape of request', async () => {
  const ours = capture();
  const theirs = capture();
  const logger = createLogger('info', ours.stream);
  const reference = createLogger('info', theirs.stream).child({ host: 'portal' });
  const portal = logger.child({ host: 'portal' });
  // The line is written without pino's general path: the logger's info is never called.
  let throughPino = 0;
  const info = portal.info.bind(portal);
  portal.info = ((...args: Parameters<typeof info>) => {
    throughPino++;
    info(...args);
  }) as typeof portal.info;
  const write = requestLineWriter(portal);
  for (const [i, req] of requests.entries()) {
    const id = i === 1 ? 'client-"id"' : `req-${i}`;
    const took = i === 2 ? Number.NaN : 1.25 + i / 3;
    write(id, req as never, 200 + i, took);
    reference.child({ requestId: id }).info({ req, res: { statusCode: 200 + i }, responseTime: took }, 'request completed');
  }
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(ours.lines.length, requests.length);
  assert.equal(throughPino, 0);
  assert.deepEqual(ours.lines.map(untimed), theirs.lines.map(untimed));
  assert.match(ours.lines[1] ?? '', /"url":"\/v1\/store\/orders\/12\?api_key=\[redacted\]&limit=\[redacted\]"/);
  assert.ok(ours.lines.every((line) => typeof (JSON.parse(line) as { time: unknown }).time === 'number'));
});

test('when the level is above info, then no line is written; when the logger has a mixin, then pino writes the line, with what the mixin adds', async () => {
  const quiet = capture();
  requestLineWriter(createLogger('warn', quiet.stream))('r1', requests[0] as never, 200, 1);
  const mixed = capture();
  const logger = pino({ mixin: () => ({ trace_id: 'abc' }) }, mixed.stream);
  requestLineWriter(logger)('r2', requests[0] as never, 204, 2);
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(quiet.lines, []);
  const line = JSON.parse(mixed.lines[0] ?? '{}') as Record<string, unknown>;
  assert.equal(line.trace_id, 'abc');
  assert.equal(line.requestId, 'r2');
  assert.deepEqual(line.res, { statusCode: 204 });
  assert.equal(line.msg, 'request completed');
});
