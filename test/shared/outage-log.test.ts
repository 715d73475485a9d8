import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { DatabaseUnavailableError } from '../../src/errors/errors.js';
import { createOutageLog } from '../../src/shared/outage-log.js';
import { capturingLogger } from '../support/logs.js';

const refused = () => new DatabaseUnavailableError('The database is not reachable.', { cause: Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5999'), { code: 'ECONNREFUSED' }) });

function parsed(logs: string[]): { level: number; msg: string; [field: string]: unknown }[] {
  return logs.map((line) => JSON.parse(line) as { level: number; msg: string });
}

describe('outage log', () => {
  test('when the database stays unreachable under load, then one line says so, summaries count the refusals, and one line says it is back', async (t) => {
    // The timers are driven by the test: with real ones, a loaded machine let the second summary (at 200 ms) fire before the
    // probe saw the database back, which counted the last refusals there instead (correct, but not what this test pins down).
    t.mock.timers.enable({ apis: ['setInterval', 'setTimeout'] });
    const settle = () => new Promise<void>((resolve) => setImmediate(resolve));
    const { logger, logs } = capturingLogger();
    let answering = false;
    const states: boolean[] = [];
    const outages = createOutageLog({
      logger,
      probe: () => (answering ? Promise.resolve() : Promise.reject(new Error('still down'))),
      onChange: (up) => states.push(up),
      summaryIntervalMs: 100,
      probeIntervalMs: 10,
    });
    t.after(() => outages.stop());

    for (let i = 0; i < 1000; i++) outages.databaseUnreachable(refused(), 'request');
    outages.databaseUnreachable(refused(), 'messages-dispatcher');
    // The first summary at 100 ms; a failed probe at 10 ms schedules the next once its rejection is handled (at 110 ms).
    t.mock.timers.tick(100);
    await settle();
    for (let i = 0; i < 7; i++) outages.databaseUnreachable(refused(), 'request');
    answering = true;
    t.mock.timers.tick(10);
    await settle();

    const lines = parsed(logs);
    assert.deepEqual(states, [false, true]);
    assert.ok(lines.length <= 4, `a bounded handful of lines, got ${lines.length}`);
    assert.equal(lines[0]?.msg, 'database unreachable: connect ECONNREFUSED 127.0.0.1:5999; requests get 503 until it answers again');
    assert.equal(lines[0]?.level, 50);
    assert.equal(lines[1]?.msg, 'database unreachable: 1,000 requests refused, 1 other operations failed in the last 0 s');
    assert.deepEqual(lines[1]?.failures, { request: 1000, 'messages-dispatcher': 1 });
    assert.match(String(lines.at(-1)?.msg), /^database reachable again after 0 s \(7 requests refused since the last line\)$/);
    assert.ok(!logs.some((line) => line.includes('"stack"')), 'no stack traces');
  });

  test('when the state flaps, then "unreachable" is written at most once per interval and the rest is summarized', () => {
    const { logger, logs } = capturingLogger();
    const outages = createOutageLog({ logger, probe: () => Promise.resolve(), onChange: () => undefined, summaryIntervalMs: 60_000, probeIntervalMs: 1 });
    for (let i = 0; i < 20; i++) {
      outages.databaseUnreachable(refused(), 'request');
      outages.databaseReachable();
    }
    outages.stop();
    assert.deepEqual(
      parsed(logs).map((line) => line.msg),
      [
        'database unreachable: connect ECONNREFUSED 127.0.0.1:5999; requests get 503 until it answers again',
        'database reachable again after 0 s (1 requests refused since the last line)',
        'database unreachable: 19 requests refused in the last 60 s',
      ],
    );
  });

  test('when clients leave before their answers, then a summary counts them', async (t) => {
    const { logger, logs } = capturingLogger();
    const outages = createOutageLog({ logger, probe: () => Promise.resolve(), onChange: () => undefined, summaryIntervalMs: 50, probeIntervalMs: 1 });
    t.after(() => outages.stop());
    for (let i = 0; i < 300; i++) outages.clientGone();
    await sleep(80);
    assert.deepEqual(
      parsed(logs).map((line) => line.msg),
      ['300 clients went away before their responses in the last 0 s'],
    );
  });
});
