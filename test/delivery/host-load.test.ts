import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { test } from 'node:test';
import { createHostLoad } from '../../src/delivery/engine-pacing.js';

/** Keeps the event loop busy for `ms` (a synchronous stretch, as a burst of requests would). */
function spin(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until);
}

test('when the host serves requests with its loop full, then it is busy; a stretch shorter than 100 ms goes by the last verdict; an idle or a quiet stretch is not busy', async () => {
  const host = createHostLoad();
  await sleep(120);
  host.request();
  assert.deepEqual(host.load(), { busy: false, quiet: false }, 'a request on an idle loop');
  host.request();
  spin(150);
  assert.deepEqual(host.load(), { busy: true, quiet: false }, 'requests and a full loop');
  // A few ms later (the engine's next slice on an idle server would ask this soon): the last full stretch's verdict.
  host.request();
  assert.deepEqual(host.load(), { busy: true, quiet: false });
  await sleep(150);
  assert.deepEqual(host.load(), { busy: false, quiet: false }, 'the loop idled since: not busy, although a request came');
  await sleep(120);
  assert.deepEqual(host.load(), { busy: false, quiet: true }, 'no request at all');
});

test('when an idle host is asked twice within a few ms after one request, then it is not busy either time', async () => {
  const host = createHostLoad();
  await sleep(120);
  host.request();
  spin(4);
  assert.equal(host.load().busy, false);
  // The next request, answered with the delivery's commit: 4 ms of a full loop, asked about at once.
  host.request();
  spin(4);
  assert.equal(host.load().busy, false, 'a 4 ms stretch of work does not make the loop "full"');
});
