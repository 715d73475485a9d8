import { setTimeout as sleep } from 'node:timers/promises';

/**
 * Runs `work` and answers no sooner than `minimumMs` after it started (wall
 * time, not the services' clock): a flow whose work differs by outcome (a
 * database write for a known address, none for an unknown one) then takes
 * the same time whatever the outcome, as long as the work fits in the bound.
 */
export async function takingAtLeast<T>(minimumMs: number, work: () => Promise<T>): Promise<T> {
  const started = performance.now();
  try {
    return await work();
  } finally {
    const left = minimumMs - (performance.now() - started);
    if (left > 0) await sleep(left);
  }
}
