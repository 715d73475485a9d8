import { createStoredForm } from './request-log-entries.js';
import type { RequestLogsRepository } from './request-logs-repository.js';
import { systemClock, type Clock } from '../shared/clock.js';
import { usageOfRequests } from '../usage/usage-counters.js';
import { createPeriodicFlush } from '../shared/periodic-flush.js';
import { createCaptureBuffer, type CapturedRequest } from './request-log-buffer.js';

/**
 * Requests per append, and a turn of the event loop between appends: SQLite
 * writes synchronously, so a second's requests at full speed (some 30,000)
 * written at once held every request behind them for over 100 ms (when a
 * row was a request); 2,000 packed ones hold them a couple of milliseconds.
 * Each append also pays for its commit and the pages it writes whatever its
 * size: 2,000 rather than 500 took a fifth off the flush (BENCHMARKS.md,
 * fifteenth session).
 */
const APPEND_CHUNK = 2000;

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
 * the HTTP layer already holds; the stored form (redacted path, error code)
 * is computed at flush time, column by column (stored-requests.ts). After
 * kill -9 the requests of the last interval, not yet written, are lost
 * (docs/request-logs.md).
 */
export function createRequestLogRecorder({ requestLogsRepository, clock, enabled, maxBuffered }: RequestLogRecorderOptions) {
  const toStored = createStoredForm();
  /** The requests not yet written, oldest first (request-log-buffer.ts: column by column, no object per request). */
  const pending = createCaptureBuffer();
  let dropped = 0;
  /** The absolute position after the chunk being written (request-log-buffer.ts): dropping it loses nothing. */
  let writtenUpTo = 0;
  let flushing: Promise<void> | undefined;
  /** Captures still being completed (the owner of a failed key being looked up): a flush waits for them. */
  const completing = new Set<Promise<void>>();

  /** Notes one request, its fields copied at once (the caller may reuse the object). Memory only: no I/O, no serialization. */
  function capture(request: CapturedRequest): void {
    if (pending.size >= maxBuffered) {
      // The oldest tenth at once.
      const excess = Math.max(1, Math.floor(maxBuffered / 10));
      // Only what is not being written is lost (the chunk in flight is let go when its write succeeds).
      dropped += Math.min(excess, pending.size) - Math.max(0, Math.min(writtenUpTo, pending.head + excess) - pending.head);
      pending.dropOldest(excess);
    }
    pending.push(request);
  }

  /**
   * Writes the `count` oldest requests held, APPEND_CHUNK at a time; each
   * chunk is let go once written. A failed write leaves its chunk and those
   * after it held for the next attempt, ahead of what arrived meanwhile.
   */
  async function write(count: number): Promise<void> {
    for (let written = 0; written < count && pending.size > 0; written += APPEND_CHUNK) {
      if (written > 0) await new Promise<void>((resolve) => setImmediate(resolve));
      const from = pending.head;
      const requests = toStored(pending.peek(Math.min(APPEND_CHUNK, count - written)));
      writtenUpTo = from + requests.length;
      try {
        await requestLogsRepository.append(requests, usageOfRequests(requests));
      } catch (error) {
        // Requests of this chunk the bound let go meanwhile, counted as written, are lost after all.
        dropped += Math.max(0, Math.min(pending.head, from + requests.length) - from);
        writtenUpTo = 0;
        throw error;
      }
      pending.release(from, requests.length);
      writtenUpTo = 0;
    }
  }

  /** Writes what is pending now; one flush at a time (a second waits for the first, then writes what came since). */
  async function flush(): Promise<void> {
    await Promise.all(completing);
    while (flushing !== undefined) await flushing.catch(() => undefined);
    if (pending.size === 0) return;
    flushing = write(pending.size).finally(() => (flushing = undefined));
    await flushing;
  }

  const periodic = createPeriodicFlush(flush);
  return {
    enabled,
    /** Epoch milliseconds now, by the recorder's clock: what a capture stamps its request's arrival from. */
    // The system clock's time without a Date per request.
    now: clock === systemClock ? Date.now : (): number => clock.now().getTime(),
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
