import type { EventsService } from './events-service.js';

/** Events deleted per statement: a large backlog is pruned in short statements, never one long one. */
const PRUNE_BATCH = 10_000;
/** Statements per round: a backlog beyond this waits for the next round. */
const PRUNE_ROUNDS = 100;

export interface EventsPruner {
  /** Prunes now, then every `intervalMs`. The timer never keeps the process alive. */
  start(): void;
  /** Stops the timer and waits for a round in progress. */
  stop(): Promise<void>;
  /** One round: deletes events past the retention, in batches; resolves with how many. */
  pruneOnce(): Promise<number>;
}

/**
 * Retention of the event feed: the server deletes events older than
 * EVENTS_RETENTION_DAYS in the background. Every server process may run one;
 * their deletes are idempotent.
 */
export function createEventsPruner({
  eventsService,
  intervalMs,
  onError,
}: {
  eventsService: Pick<EventsService, 'pruneExpired'>;
  intervalMs: number;
  onError: (error: unknown) => void;
}): EventsPruner {
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<number> | undefined;
  let stopped = false;

  async function pruneOnce(): Promise<number> {
    let total = 0;
    for (let round = 0; round < PRUNE_ROUNDS && !stopped; round++) {
      const pruned = await eventsService.pruneExpired(PRUNE_BATCH);
      total += pruned;
      if (pruned < PRUNE_BATCH) break;
    }
    return total;
  }

  const tick = () => {
    running ??= pruneOnce()
      .catch((error: unknown) => {
        onError(error);
        return 0;
      })
      .finally(() => (running = undefined));
  };

  return {
    start() {
      if (timer !== undefined || stopped) return;
      tick();
      timer = setInterval(tick, intervalMs);
      timer.unref();
    },
    async stop() {
      stopped = true;
      if (timer !== undefined) clearInterval(timer);
      timer = undefined;
      await running;
    },
    pruneOnce,
  };
}
