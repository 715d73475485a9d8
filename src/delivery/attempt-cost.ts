/**
 * What an attempt costs the process beyond the engine's own timed work.
 *
 * The engine times what it runs itself (claiming, settling, signing and
 * starting a request), but an attempt also costs CPU the engine never sees
 * run: the HTTP client writing the request, parsing the answer, its timers
 * and sockets, run in callbacks between everything else. Left out, a fair
 * share of 10 % was measured at several times that (cancels at 0.59× with a
 * subscribed endpoint). So each attempt that ended is charged an estimate of
 * that part too, learnt from the process's CPU time over stretches in which
 * it served no requests (then what it spent beyond the engine's own work
 * went to the attempts): an average of such stretches, weighted to the
 * recent ones, within [0, MAX_ATTEMPT_COST_MS].
 */

/** The estimate before anything was learnt: measured on the bench machine (BENCHMARKS.md). */
const INITIAL_ATTEMPT_COST_MS = 0.12;
/** No estimate above this: a stretch with other work in it (a backup, a prune) must not stop delivery. */
const MAX_ATTEMPT_COST_MS = 2;
/** Fewer ended attempts than this in a stretch say too little to learn from. */
const MIN_ATTEMPTS = 20;
/** The weight of the newest stretch in the average. */
const WEIGHT = 0.2;

export function createAttemptCost(cpuUsage: (previous?: NodeJS.CpuUsage) => NodeJS.CpuUsage = process.cpuUsage) {
  let perAttemptMs = INITIAL_ATTEMPT_COST_MS;
  let since = cpuUsage();
  return {
    /** The current estimate, in ms of CPU per ended attempt. */
    get perAttemptMs(): number {
      return perAttemptMs;
    },
    /**
     * Ends a stretch: the engine spent `ownMs` of its own timed work on it
     * and `attempts` ended. When the process served no requests meanwhile
     * (`quiet`), the rest of its CPU time is what those attempts cost.
     */
    learn(ownMs: number, attempts: number, quiet: boolean): void {
      const used = cpuUsage(since);
      since = cpuUsage();
      if (!quiet || attempts < MIN_ATTEMPTS) return;
      const beyond = ((used.user + used.system) / 1000 - ownMs) / attempts;
      const clamped = Math.min(MAX_ATTEMPT_COST_MS, Math.max(0, beyond));
      perAttemptMs = (1 - WEIGHT) * perAttemptMs + WEIGHT * clamped;
    },
  };
}
