import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { DatabaseUnavailableError } from '../errors/errors.js';
import type { Clock } from '../shared/clock.js';
import type { OutageLog, OutageSource } from '../shared/outage-log.js';
import { DeliveryError } from './delivery-error.js';
import type { AttemptRecord, ClaimedItem, DeliveryQueue, Outcome } from './delivery-queue.js';

/** A claim outlives the slowest possible attempt by this much before another process may retry it (unless configured). */
const CLAIM_MARGIN_MS = 60_000;

/** Hands one item to its destination; throws DeliveryError when the attempt failed. */
export interface Sender<T> {
  deliver(item: T, signal: AbortSignal): Promise<AttemptRecord>;
}

export interface DeliveryEngineDependencies<T extends ClaimedItem> {
  /** Names the engine in logs ("messages", "webhooks"). */
  name: 'messages' | 'webhooks';
  queue: DeliveryQueue<T>;
  sender: Sender<T>;
  clock: Clock;
  logger: Logger;
  /** Where an unreachable database goes: one line per outage, not one per poll. */
  outages: Pick<OutageLog, 'databaseUnreachable'>;
  /** claimMarginMs: how long a claim outlives the attempt timeout (default a minute): a dead process's items wait that long. */
  config: { pollIntervalMs: number; attemptTimeoutMs: number; batchSize: number; claimMarginMs?: number };
  /** The delay before the next attempt after `attempts` failed ones, or undefined to give up. `random` is in [0, 1). */
  retryDelayMs(attempts: number, random: number): number | undefined;
  random: () => number;
  /**
   * While `busy()` says the process is serving requests, the engine takes at
   * most `share` of the time (it rests after each batch in proportion):
   * deliveries lag during a burst and catch up after it, since they are
   * already durable in the queue. Absent: the engine never rests while work is due.
   */
  yieldTo?: { busy(): boolean; share: number };
}

/**
 * Moves a delivery queue on: claims due items (a lease, so several processes
 * on one database share the work and never hold one item at once), delivers
 * them, and records a success, a retry time or giving up. A claim lapses if
 * its holder dies, so a crashed process's items are retried by whoever runs
 * next. Ordering, where a queue has it, is the queue's claim's business: it
 * only offers an item whose predecessors are settled.
 */
export function createDeliveryEngine<T extends ClaimedItem>({ name, queue, sender, clock, logger, outages, config, retryDelayMs, random, yieldTo }: DeliveryEngineDependencies<T>) {
  const claimant = randomUUID();
  const log = logger.child({ component: `${name}-delivery` });
  const source: OutageSource = `${name}-dispatcher`;
  // An outage is expected and logged once by the outage log; anything else with its stack.
  const failed = (error: unknown, what: string, fields: Record<string, unknown> = {}) => {
    if (error instanceof DatabaseUnavailableError) outages.databaseUnreachable(error, source);
    else log.error({ err: error, ...fields }, what);
  };
  const inFlight = new AbortController();
  let stopping = false;
  let woken = false;
  let wakeUp: (() => void) | undefined;
  let running: Promise<void> | undefined;

  function idle(ms: number): Promise<void> {
    if (woken || stopping) {
      woken = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        wakeUp = undefined;
        woken = false;
        resolve();
      }
      wakeUp = done;
    });
  }

  /** One attempt; its outcome, or undefined when shutdown interrupted it (then it is released). */
  async function attempt(item: T): Promise<Outcome | undefined> {
    const settlement = { id: item.id, claimant };
    const started = performance.now();
    try {
      const record = await sender.deliver(item, inFlight.signal);
      const durationMs = Math.round(performance.now() - started);
      return { sent: true, settlement: { ...settlement, durationMs, ...record, at: clock.now().toISOString() } };
    } catch (error) {
      if (inFlight.signal.aborted) {
        await queue.release({ ...settlement, at: clock.now().toISOString() });
        return undefined;
      }
      const durationMs = Math.round(performance.now() - started);
      const known = error instanceof DeliveryError ? error : undefined;
      if (known === undefined) log.error({ err: error, id: item.id }, 'delivery failed unexpectedly');
      const reason = known?.message ?? 'Delivery failed unexpectedly.';
      const now = clock.now();
      const gone = known?.statusCode === 410;
      const scheduled = gone ? undefined : retryDelayMs(item.attempts, random());
      const delay = scheduled === undefined ? undefined : Math.max(scheduled, known?.retryAfterMs ?? 0);
      const retryAt = delay === undefined ? undefined : new Date(now.getTime() + delay).toISOString();
      if (retryAt === undefined) log.warn({ id: item.id, attempts: item.attempts, reason }, 'delivery given up');
      else log.info({ id: item.id, attempts: item.attempts, reason, retryAt }, 'delivery failed; will retry');
      return {
        sent: false,
        settlement: {
          ...settlement,
          at: now.toISOString(),
          error: reason,
          durationMs,
          ...(known?.statusCode === undefined ? {} : { statusCode: known.statusCode }),
          ...(retryAt === undefined ? {} : { retryAt }),
          ...(gone ? { gone } : {}),
        },
      };
    }
  }

  /** Records a batch's outcomes: in one step where the queue can (one commit, not one per delivery). */
  async function settle(outcomes: readonly Outcome[]): Promise<void> {
    if (queue.settleMany !== undefined) {
      await queue.settleMany(outcomes);
      return;
    }
    for (const outcome of outcomes) {
      if (outcome.sent) await queue.markSent(outcome.settlement);
      else await queue.markAttemptFailed(outcome.settlement);
    }
  }

  async function loop(): Promise<void> {
    while (!stopping) {
      let claimed: T[];
      const batchStarted = performance.now();
      try {
        const now = clock.now();
        claimed = await queue.claimDue({
          claimant,
          now: now.toISOString(),
          claimedUntil: new Date(now.getTime() + config.attemptTimeoutMs + (config.claimMarginMs ?? CLAIM_MARGIN_MS)).toISOString(),
          limit: config.batchSize,
        });
      } catch (error) {
        failed(error, 'could not claim deliveries; will try again');
        await idle(config.pollIntervalMs);
        continue;
      }
      if (claimed.length === 0) {
        await idle(config.pollIntervalMs);
        continue;
      }
      const outcomes = await Promise.all(
        claimed.map((item) =>
          attempt(item).catch((error: unknown) => {
            // Storage failed while releasing: the claim lapses and the item is retried then.
            failed(error, 'could not release a delivery', { id: item.id });
            return undefined;
          }),
        ),
      );
      await settle(outcomes.filter((outcome) => outcome !== undefined)).catch((error: unknown) => {
        // Storage failed while settling: the claims lapse and the items are retried then.
        failed(error, 'could not record delivery outcomes');
      });
      if (yieldTo?.busy() === true) await idle(((performance.now() - batchStarted) * (1 - yieldTo.share)) / yieldTo.share);
    }
  }

  return {
    start(): void {
      if (running !== undefined) return;
      running = loop();
    },
    /** Looks for due items now instead of at the next poll. */
    wake(): void {
      woken = true;
      wakeUp?.();
    },
    /** Stops claiming, interrupts deliveries in flight (they are released, not counted) and waits for the loop to end. */
    async stop(): Promise<void> {
      stopping = true;
      inFlight.abort();
      wakeUp?.();
      await running;
    },
  };
}

