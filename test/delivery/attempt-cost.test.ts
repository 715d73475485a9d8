import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createAttemptCost } from '../../src/delivery/attempt-cost.js';

/** A process CPU clock the test moves: each call to learn reads the CPU time since the previous one. */
function fakeCpu() {
  let usedUs = 0;
  const cpuUsage = (previous?: NodeJS.CpuUsage): NodeJS.CpuUsage => ({ user: usedUs - (previous?.user ?? 0), system: 0 });
  return { cpuUsage, spend: (ms: number) => (usedUs += ms * 1000) };
}

test('when the process served no requests, then each ended attempt is charged the CPU beyond the engine\'s own work, averaged towards the new figure', () => {
  const cpu = fakeCpu();
  const cost = createAttemptCost(cpu.cpuUsage);
  const initial = cost.perAttemptMs;
  // 100 attempts, 30 ms of the engine's own timed work, 80 ms of process CPU: 0.5 ms each beyond it.
  cpu.spend(80);
  cost.learn(30, 100, true);
  assert.ok(Math.abs(cost.perAttemptMs - (0.8 * initial + 0.2 * 0.5)) < 1e-9, String(cost.perAttemptMs));
  for (let i = 0; i < 40; i++) {
    cpu.spend(80);
    cost.learn(30, 100, true);
  }
  assert.ok(Math.abs(cost.perAttemptMs - 0.5) < 0.01, `converges: ${cost.perAttemptMs}`);
});

test('when requests were served, or too few attempts ended, or other work filled the stretch, then the estimate does not follow it', () => {
  const cpu = fakeCpu();
  const cost = createAttemptCost(cpu.cpuUsage);
  const initial = cost.perAttemptMs;
  cpu.spend(500);
  cost.learn(10, 100, false);
  assert.equal(cost.perAttemptMs, initial, 'requests were served: their CPU is not the attempts\'');
  cpu.spend(500);
  cost.learn(10, 5, true);
  assert.equal(cost.perAttemptMs, initial, 'five attempts say too little');
  // A backup in the stretch: 10 s of CPU over 20 attempts would be 500 ms each; at most 2 ms is learnt from it.
  cpu.spend(10_000);
  cost.learn(0, 20, true);
  assert.ok(cost.perAttemptMs <= 0.8 * initial + 0.2 * 2 + 1e-9, String(cost.perAttemptMs));
});
