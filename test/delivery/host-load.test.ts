import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createHostLoad } from '../../src/delivery/engine-pacing.js';

/**
 * A monotonic clock and an event loop whose busy and idle time the test
 * decides (the real loop's utilisation depends on what else the machine and
 * the process do: on a loaded machine a 150 ms sleep measured busy).
 */
function fakeLoop() {
  let now = 0;
  let active = 0;
  let idle = 0;
  type Reading = { idle: number; active: number; utilization: number };
  const loop = (later?: Reading, earlier?: Reading): Reading => {
    if (later === undefined) return { idle, active, utilization: active / Math.max(1, active + idle) };
    const base = earlier ?? { idle: 0, active: 0, utilization: 0 };
    const a = later.active - base.active;
    const i = later.idle - base.idle;
    return { idle: i, active: a, utilization: a / Math.max(1, a + i) };
  };
  return {
    clock: () => now,
    loop: loop as typeof performance.eventLoopUtilization,
    /** The loop runs code for `ms`. */
    spin(ms: number) {
      now += ms;
      active += ms;
    },
    /** The loop waits for `ms`. */
    sleep(ms: number) {
      now += ms;
      idle += ms;
    },
  };
}

test('when the host serves requests with its loop full, then it is busy; a stretch shorter than 100 ms goes by the last verdict; an idle or a quiet stretch is not busy', () => {
  const time = fakeLoop();
  const host = createHostLoad(time);
  time.sleep(120);
  host.request();
  assert.deepEqual(host.load(), { busy: false, quiet: false }, 'a request on an idle loop');
  host.request();
  time.spin(150);
  assert.deepEqual(host.load(), { busy: true, quiet: false }, 'requests and a full loop');
  // A few ms later (the engine's next slice on an idle server would ask this soon): the last full stretch's verdict.
  host.request();
  time.spin(3);
  assert.deepEqual(host.load(), { busy: true, quiet: false });
  time.sleep(150);
  assert.deepEqual(host.load(), { busy: false, quiet: false }, 'the loop idled since: not busy, although a request came');
  time.sleep(120);
  assert.deepEqual(host.load(), { busy: false, quiet: true }, 'no request at all');
  // Over the threshold (70 %) and under it, with requests.
  host.request();
  time.spin(80);
  time.sleep(20);
  assert.deepEqual(host.load(), { busy: true, quiet: false }, '80 % of the stretch spent running');
  host.request();
  time.spin(60);
  time.sleep(40);
  assert.deepEqual(host.load(), { busy: false, quiet: false }, '60 % of the stretch spent running');
});

test('when an idle host is asked twice within a few ms after one request, then it is not busy either time', () => {
  const time = fakeLoop();
  const host = createHostLoad(time);
  time.sleep(120);
  host.request();
  time.spin(4);
  assert.equal(host.load().busy, false);
  // The next request, answered with the delivery's commit: 4 ms of a full loop, asked about at once.
  host.request();
  time.spin(4);
  assert.equal(host.load().busy, false, 'a 4 ms stretch of work does not make the loop "full"');
});

test('when no clock is given, then the real event loop is measured: a loop kept running with requests is busy', () => {
  const host = createHostLoad();
  host.request();
  const until = performance.now() + 150;
  while (performance.now() < until);
  assert.deepEqual(host.load(), { busy: true, quiet: false });
});
