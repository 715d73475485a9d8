/**
 * Gathers the calls that arrive together into one batch and hands the batch
 * to `commit` (one transaction, one durable commit), answering each call only
 * once that commit has resolved. While a commit is in flight, new calls queue
 * for the next one, so under load the batches grow by themselves and the
 * fsync cost is shared; a lone caller waits only for the current turn of the
 * event loop.
 */
export function createGroupCommit<T, R>(
  commit: (batch: readonly T[]) => Promise<R[]>,
  { maxBatch = 512 }: { maxBatch?: number } = {},
): (item: T) => Promise<R> {
  interface Pending {
    item: T;
    resolve: (result: R) => void;
    reject: (error: unknown) => void;
  }
  let queue: Pending[] = [];
  let scheduled = false;
  let committing = false;

  function schedule(): void {
    if (scheduled || committing || queue.length === 0) return;
    scheduled = true;
    // setImmediate runs after the current poll phase, i.e. after every
    // request that has already arrived on a socket has been parsed and queued.
    setImmediate(() => void flush());
  }

  async function flush(): Promise<void> {
    scheduled = false;
    committing = true;
    const batch = queue.length <= maxBatch ? queue : queue.slice(0, maxBatch);
    queue = queue.length <= maxBatch ? [] : queue.slice(maxBatch);
    try {
      const results = await commit(batch.map((pending) => pending.item));
      batch.forEach((pending, i) => {
        const result = results[i];
        if (result === undefined) pending.reject(new Error(`group commit returned ${results.length} results for ${batch.length} items`));
        else pending.resolve(result);
      });
    } catch (error) {
      for (const pending of batch) pending.reject(error);
    } finally {
      committing = false;
      schedule();
    }
  }

  return (item) =>
    new Promise<R>((resolve, reject) => {
      queue.push({ item, resolve, reject });
      schedule();
    });
}
