import { createStoredForm, type CapturedRequest } from './request-log-entries.js';
import type { RequestLogsRepository } from './request-logs-repository.js';
import type { Clock } from '../shared/clock.js';
import { usageOfRequests } from '../usage/usage-counters.js';
import { createPeriodicFlush } from '../shared/periodic-flush.js';

/**
 * Rows per append, and a turn of the event loop between appends: SQLite
 * writes synchronously, so a second's requests at full speed (some 30,000
 * rows) written at once held every request behind them for over 100 ms;
 * 500 rows hold them a few milliseconds.
 */
const APPEND_CHUNK = 500;

export interface RequestLogRecorderOptions {
  requestLogsRepository: Pick<RequestLogsRepository, 'append'>;
  /** The time requests are stamped with (the retention is judged by the same clock). */
  clock: Clock;
  /** REQUEST_LOGS: when false, capture() is never called (the hosts install no capture) and nothing is written. */
  enabled: boolean;
  /**
   * Captured requests held while storage cannot take them (an outage):
   * beyond this the oldest are dropped, so memory stays bounded.
   */
  maxBuffered: number;
}

/**
 * Remembers each logged request in memory and writes them to storage in one
 * batch per interval (REQUEST_LOG_FLUSH_MS, at most a second), the way API
 * keys' last-used times are written (api-keys/api-key-usage.ts): a request
 * never waits for, nor pays for, the write. capture() only pushes the fields
 * the HTTP layer already holds; the stored form (time as text, redacted path,
 * error code) is computed at flush time. After kill -9 the requests of the
 * last interval, not yet written, are lost (docs/request-logs.md).
 */
export function createRequestLogRecorder({ requestLogsRepository, clock, enabled, maxBuffered }: RequestLogRecorderOptions) {
  const toStored = createStoredForm();
  let pending: CapturedRequest[] = [];
  let dropped = 0;
  let flushing: Promise<void> | undefined;
  /** Captures still being completed (the owner of a failed key being looked up): a flush waits for them. */
  const completing = new Set<Promise<void>>();

  /** Notes one request. Memory only: no I/O, no serialization. */
  function capture(request: CapturedRequest): void {
    if (pending.length >= maxBuffered) {
      // The oldest tenth at once: a full buffer costs one copy per tenth, not one per request.
      const excess = Math.max(1, Math.floor(maxBuffered / 10));
      pending = pending.slice(excess);
      dropped += excess;
    }
    pending.push(request);
  }

  async function write(batch: CapturedRequest[]): Promise<void> {
    for (let start = 0; start < batch.length; start += APPEND_CHUNK) {
      if (start > 0) await new Promise<void>((resolve) => setImmediate(resolve));
      const chunk = batch.slice(start, start + APPEND_CHUNK);
      try {
        const entries = chunk.map(toStored);
        await requestLogsRepository.append(entries, usageOfRequests(entries));
      } catch (error) {
        // Kept for the next attempt, ahead of what arrived meanwhile, within the bound.
        pending = [...batch.slice(start), ...pending];
        if (pending.length > maxBuffered) {
          dropped += pending.length - maxBuffered;
          pending = pending.slice(pending.length - maxBuffered);
        }
        throw error;
      }
    }
  }

  /** Writes what is pending now; one flush at a time (a second waits for the first, then writes what came since). */
  async function flush(): Promise<void> {
    await Promise.all(completing);
    while (flushing !== undefined) await flushing.catch(() => undefined);
    if (pending.length === 0) return;
    const batch = pending;
    pending = [];
    flushing = write(batch).finally(() => (flushing = undefined));
    await flushing;
  }

  const periodic = createPeriodicFlush(flush);
  return {
    enabled,
    /** Epoch milliseconds now, by the recorder's clock: what a capture stamps its request's arrival from. */
    now: (): number => clock.now().getTime(),
    capture,
    /**
     * Notes a request once `completed` resolves with it (undefined: nothing
     * to log); a failure logs nothing. The next flush includes it.
     */
    captureWhenKnown(completed: Promise<CapturedRequest | undefined>): void {
      const tracked: Promise<void> = completed
        .then(
          (request) => {
            if (request !== undefined) capture(request);
          },
          () => undefined,
        )
        .finally(() => completing.delete(tracked));
      completing.add(tracked);
    },
    flush,
    /** Requests dropped since start because storage could not keep up (an outage longer than the buffer). */
    dropped: () => dropped,
    /** Flushes every `intervalMs` until stop() (nothing when REQUEST_LOGS is off); failures are reported to `onError` and retried next time. */
    start(intervalMs: number, onError: (error: unknown) => void): void {
      if (enabled) periodic.start(intervalMs, onError);
    },
    stop: periodic.stop,
  };
}

export type RequestLogRecorder = ReturnType<typeof createRequestLogRecorder>;
