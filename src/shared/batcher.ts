/**
 * Gathers the calls that arrive together into one batch and hands the batch
 * to `run` (e.g. one transaction with one durable commit, or one query),
 * answering each call only once that run has resolved. New calls never join
 * a run in flight: so each call's run starts after the call (a read sees
 * every commit acknowledged before it), under load the batches grow by
 * themselves and the per-run cost (an fsync, a round trip) is shared, and a
 * lone caller waits only for the current turn of the event loop. At most
 * `maxInFlight` runs are in flight at once (default 1: e.g. one write
 * transaction at a time); calls beyond wait for the next free run.
 */
export function createBatcher<T, R>(
  run: (batch: readonly T[]) => Promise<R[]>,
  { maxBatch = 512, maxInFlight = 1 }: { maxBatch?: number; maxInFlight?: number } = {},
): (item: T) => Promise<R> {
  interface Pending {
    item: T;
    resolve: (result: R) => void;
    reject: (error: unknown) => void;
  }
  let queue: Pending[] = [];
  let scheduled = false;
  let running = 0;

  function schedule(): void {
    if (scheduled || running >= maxInFlight || queue.length === 0) return;
    scheduled = true;
    // setImmediate runs after the current poll phase, i.e. after every
    // request that has already arrived on a socket has been parsed and queued.
    setImmediate(() => void flush());
  }

  async function flush(): Promise<void> {
    scheduled = false;
    running++;
    const batch = queue.length <= maxBatch ? queue : queue.slice(0, maxBatch);
    queue = queue.length <= maxBatch ? [] : queue.slice(maxBatch);
    // What did not fit goes out in a further run now, if one is free.
    schedule();
    try {
      const results = await run(batch.map((pending) => pending.item));
      batch.forEach((pending, i) => {
        const result = results[i];
        if (result === undefined) pending.reject(new Error(`a batch of ${batch.length} items got ${results.length} results`));
        else pending.resolve(result);
      });
    } catch (error) {
      for (const pending of batch) pending.reject(error);
    } finally {
      running--;
      schedule();
    }
  }

  return (item) =>
    new Promise<R>((resolve, reject) => {
      queue.push({ item, resolve, reject });
      schedule();
    });
}
