/**
 * Writes what a buffer holds every `intervalMs` until stop(), which stops the
 * timer and writes once more: the schedule of the in-memory buffers that
 * keep writes off the request path (api-keys/api-key-usage.ts,
 * request-logs/request-log-recorder.ts). A failed write is reported to
 * `onError` and retried at the next tick; the timer never keeps the process
 * alive.
 */
export function createPeriodicFlush(flush: () => Promise<void>) {
  let timer: NodeJS.Timeout | undefined;
  return {
    /** Flushes every `intervalMs` until stop(); failures are reported to `onError` and retried next time. */
    start(intervalMs: number, onError: (error: unknown) => void): void {
      if (timer !== undefined) return;
      timer = setInterval(() => flush().catch(onError), intervalMs);
      timer.unref();
    },
    /** Stops the timer and writes what is pending. */
    async stop(): Promise<void> {
      if (timer !== undefined) clearInterval(timer);
      timer = undefined;
      await flush();
    },
  };
}
