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
