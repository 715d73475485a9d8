/* How a delivery engine paces itself (delivery-engine.ts). */

/** The engine's own event-loop time after which it asks whether the process is busy (and rests in proportion if so). */
export const SLICE_MS = 5;

/**
 * How long an ended attempt's outcome may wait for others to end before it
 * is settled: one commit for the attempts that end about together, not one
 * each (a commit is an fsync on SQLite). The receiver has its answer
 * already; only the next delivery of the same order waits this long.
 */
export const GATHER_MS = 5;

/** A rest that only stop ends (attempts in flight go on meanwhile; their outcomes wait). */
export function rest(ms: number, stop: AbortSignal): Promise<void> {
  if (stop.aborted || ms <= 0) return Promise.resolve();
  return new Promise((resolve) => {
    const stopped = () => {
      clearTimeout(timer);
      resolve();
    };
    const timer = setTimeout(() => {
      stop.removeEventListener('abort', stopped);
      resolve();
    }, ms);
    stop.addEventListener('abort', stopped, { once: true });
  });
}

/** What the host did since the engine last asked. */
export interface HostLoad {
  /** It served requests with its event loop nearly full: the engine takes only its share. */
  busy: boolean;
  /** It served no requests at all (so the process's CPU time was the engine's and the background's). */
  quiet: boolean;
}

/** The event loop's utilisation above which a process serving requests counts as busy. */
const BUSY_LOOP_UTILIZATION = 0.7;
/**
 * The shortest stretch the utilisation is measured over. The engine asks
 * after every SLICE_MS of its own work, which on an idle server can be a
 * few ms of one delivery's commit: over so short a stretch the loop looks
 * full, and a lone delivery would rest 95 ms for nothing. A shorter stretch
 * than this goes by the last full one's verdict.
 */
const LOAD_WINDOW_MS = 100;

/**
 * What a serving process tells its delivery engine: `request` counts each
 * request the host answers; `load` says, since it was last asked, whether
 * the host served requests with its event loop over BUSY_LOOP_UTILIZATION
 * (busy) or served none (quiet).
 */
export function createHostLoad({
  clock = () => performance.now(),
  loop = performance.eventLoopUtilization.bind(performance),
}: {
  /** Milliseconds, monotonic (tests give their own). */
  clock?: () => number;
  /** The event loop's utilisation, as performance.eventLoopUtilization measures it (tests give their own). */
  loop?: typeof performance.eventLoopUtilization;
} = {}) {
  let requests = 0;
  let since = clock();
  let loopSince = loop();
  let busy = false;
  return {
    request(): void {
      requests++;
    },
    load(): HostLoad {
      const quiet = requests === 0;
      const now = clock();
      if (now - since < LOAD_WINDOW_MS) return { busy: busy && !quiet, quiet };
      const loopNow = loop();
      busy = !quiet && loop(loopNow, loopSince).utilization > BUSY_LOOP_UTILIZATION;
      loopSince = loopNow;
      since = now;
      requests = 0;
      return { busy, quiet };
    },
  };
}
