import { randomUUID } from 'node:crypto';
import { setMaxListeners } from 'node:events';
import type { Logger } from 'pino';
import { DatabaseUnavailableError } from '../errors/errors.js';
import type { Clock } from '../shared/clock.js';
import type { OutageLog, OutageSource } from '../shared/outage-log.js';
import { DeliveryError } from './delivery-error.js';
import type { AttemptRecord, ClaimedItem, DeliveryQueue, Outcome } from './delivery-queue.js';
import { createAttemptCost } from './attempt-cost.js';
import { createSlots } from './delivery-slots.js';
import { GATHER_MS, rest, SLICE_MS, type HostLoad } from './engine-pacing.js';

/** A claim outlives the slowest possible attempt by this much before another process may retry it (unless configured). */
const CLAIM_MARGIN_MS = 60_000;

/** Hands one item to its destination; throws DeliveryError when the attempt failed. */
export interface Sender<T> {
  deliver(item: T, signal: AbortSignal): Promise<AttemptRecord>;
}

export interface DeliveryEngineDependencies<T extends ClaimedItem> {
  /** Names the engine in logs ("messages", "webhooks", "mail"). */
  name: 'messages' | 'webhooks' | 'mail';
  queue: DeliveryQueue<T>;
  sender: Sender<T>;
  clock: Clock;
  logger: Logger;
  /** Where an unreachable database goes: one line per outage, not one per poll. */
  outages: Pick<OutageLog, 'databaseUnreachable'>;
  /**
   * maxInFlight: attempts this process has in flight at once, every
   * destination together; perDestination: of those, to one destination.
   * claimMarginMs: how long a claim outlives the attempt timeout (default a
   * minute): a dead process's items wait that long.
   */
  config: { pollIntervalMs: number; attemptTimeoutMs: number; maxInFlight: number; perDestination: number; claimMarginMs?: number };
  /** The delay before the next attempt after `attempts` failed ones, or undefined to give up. `random` is in [0, 1). */
  retryDelayMs(attempts: number, random: number): number | undefined;
  random: () => number;
  /**
   * While `load()` says the process is busy serving requests, the engine's
   * work (claiming, settling, signing and starting requests, timed, and each
   * ended attempt's HTTP client work, estimated: attempt-cost.ts; CPU time,
   * never time spent waiting for a receiver) takes at most `share` of the
   * process: after each slice of it the engine claims
   * nothing new for a rest in proportion. Attempts in flight go on; due
   * deliveries lag during a burst and catch up after it, since they are
   * durable in the queue. Absent: the engine never rests while work is due.
   */
  yieldTo?: { load(): HostLoad; share: number };
}

/**
 * Moves a delivery queue on: claims due items (a lease, so several processes
 * on one database share the work and never hold one item at once), delivers
 * them, and records a success, a retry time or giving up. A claim lapses if
 * its holder dies, so a crashed process's items are retried by whoever runs
 * next. Ordering, where a queue has it, is the queue's claim's business: it
 * only offers an item whose predecessors are settled.
 *
 * Every attempt runs on its own: the engine keeps up to maxInFlight
 * attempts going, at most perDestination to one destination; an attempt
 * that ends frees its slot at once, its outcome is settled (with whatever
 * else ended meanwhile, in one commit) and the next due item is claimed. No
 * attempt waits for another, so a slow or silent destination delays only
 * its own deliveries.
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
  // Each attempt in flight listens for shutdown on this one signal.
  setMaxListeners(config.maxInFlight + 16, inFlight.signal);
  const slots = createSlots(config.perDestination);
  const attempts = new Set<Promise<void>>();
  /** Outcomes of ended attempts, not yet settled, and when the first of them ended. */
  const ended: Outcome[] = [];
  let firstEndedAt = 0;
  /** The engine's own event-loop time (ms), and the attempts that ended, since it last asked whether the process is busy. */
  let ownMs = 0;
  let endedSinceAsked = 0;
  const cost = createAttemptCost();
  let stopping = false;
  let woken = false;
  let wakeUp: (() => void) | undefined;
  let running: Promise<void> | undefined;

  /** Waits until woken (a wake, an attempt ending, stop) or for `ms`; undefined: no timer. */
  function idle(ms: number | undefined): Promise<void> {
    if (woken || stopping) {
      woken = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const timer = ms === undefined ? undefined : setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        wakeUp = undefined;
        woken = false;
        resolve();
      }
      wakeUp = done;
    });
  }

  function nudge(): void {
    woken = true;
    wakeUp?.();
  }

  /** Calls `work`, counting its synchronous part (all of it for SQLite) as the engine's own time. */
  function own<R>(work: () => R): R {
    const started = performance.now();
    try {
      return work();
    } finally {
      ownMs += performance.now() - started;
    }
  }

  /** One attempt; its outcome, or undefined when shutdown interrupted it (then it is released). */
  async function attempt(item: T): Promise<Outcome | undefined> {
    const settlement = { id: item.id, claimant, attempt: item.attempts };
    // The destination's rate limit gave this attempt a start time: it holds its slot until then.
    if (item.notBefore !== undefined) await rest(Date.parse(item.notBefore) - clock.now().getTime(), inFlight.signal);
    const started = performance.now();
    try {
      if (inFlight.signal.aborted) throw inFlight.signal.reason;
      const record = await sender.deliver(item, inFlight.signal);
      const durationMs = Math.round(performance.now() - started);
      return { sent: true, settlement: { ...settlement, durationMs, ...record, at: clock.now().toISOString() } };
    } catch (error) {
      if (inFlight.signal.aborted) {
        await queue.release({ id: item.id, claimant, at: clock.now().toISOString() });
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
          ...(known?.exchange === undefined ? {} : { exchange: known.exchange }),
          ...(retryAt === undefined ? {} : { retryAt }),
          ...(gone ? { gone } : {}),
          ...(known?.retryAfterMs === undefined ? {} : { pauseUntil: new Date(now.getTime() + known.retryAfterMs).toISOString() }),
        },
      };
    }
  }

  /** Starts an attempt in its destination's slot; when it ends, its outcome waits for the loop to settle it and the slot is free. */
  function launch(item: T): void {
    const destination = item.destination ?? '';
    slots.take(destination);
    const running: Promise<void> = own(() => attempt(item))
      .then(
        (outcome) => {
          if (outcome === undefined) return;
          endedSinceAsked++;
          slots.adjust(destination, outcome);
          if (ended.length === 0) firstEndedAt = performance.now();
          ended.push(outcome);
        },
        // Storage failed while releasing: the claim lapses and the item is retried then.
        (error: unknown) => failed(error, 'could not release a delivery', { id: item.id }),
      )
      .finally(() => {
        slots.give(destination);
        attempts.delete(running);
        nudge();
      });
    attempts.add(running);
  }

  /** Records ended attempts' outcomes: in one step where the queue can (one commit, not one per delivery). */
  async function settle(outcomes: readonly Outcome[]): Promise<void> {
    try {
      if (queue.settleMany !== undefined) {
        await own(() => queue.settleMany?.(outcomes));
        return;
      }
      for (const outcome of outcomes) {
        if (outcome.sent) await own(() => queue.markSent(outcome.settlement));
        else await own(() => queue.markAttemptFailed(outcome.settlement));
      }
    } catch (error) {
      // Storage failed while settling: the claims lapse and the items are retried then.
      failed(error, 'could not record delivery outcomes');
    }
  }

  /** Claims what fits in the free slots (settling `outcomes` in the same step where the queue can) and starts it; how many it got. */
  async function claim(room: number, outcomes: Outcome[]): Promise<number> {
    const now = clock.now();
    const request = {
      claimant,
      now: now.toISOString(),
      claimedUntil: new Date(now.getTime() + config.attemptTimeoutMs + (config.claimMarginMs ?? CLAIM_MARGIN_MS)).toISOString(),
      limit: room,
      inFlight: slots.inFlight,
      windows: slots.windows,
      perDestination: slots.initialWindow,
    };
    const { settleAndClaim } = queue;
    let claimed: T[];
    if (outcomes.length > 0 && settleAndClaim !== undefined) {
      claimed = await own(() => settleAndClaim.call(queue, outcomes, request));
    } else {
      if (outcomes.length > 0) await settle(outcomes);
      claimed = await own(() => queue.claimDue(request));
    }
    for (const item of claimed) launch(item);
    return claimed.length;
  }

  async function loop(): Promise<void> {
    while (!stopping) {
      const spent = ownMs + endedSinceAsked * cost.perAttemptMs;
      if (yieldTo !== undefined && spent >= SLICE_MS) {
        const load = yieldTo.load();
        cost.learn(ownMs, endedSinceAsked, load.quiet);
        ownMs = 0;
        endedSinceAsked = 0;
        if (load.busy) await rest((spent * (1 - yieldTo.share)) / yieldTo.share, inFlight.signal);
        continue;
      }
      // Attempts still in flight may end in a moment: their outcomes share the commit of those that ended.
      const gathering = GATHER_MS - (performance.now() - firstEndedAt);
      if (ended.length > 0 && ended.length < attempts.size && gathering > 0) {
        await idle(gathering);
        continue;
      }
      const outcomes = ended.splice(0);
      const room = config.maxInFlight - attempts.size;
      if (room <= 0) {
        if (outcomes.length > 0) await settle(outcomes);
        // Every slot taken: the next attempt to end wakes the loop.
        else await idle(undefined);
        continue;
      }
      let got: number;
      try {
        got = await claim(room, outcomes);
      } catch (error) {
        // The claim failed (and, where they were one step, the settlement with it: those claims lapse and are retried).
        failed(error, 'could not claim deliveries; will try again');
        await idle(config.pollIntervalMs);
        continue;
      }
      // As many as it could take: more may be due. Fewer: every destination with room has none due; wait for a wake, an attempt's end or the poll.
      if (got === room || ended.length > 0) continue;
      await idle(config.pollIntervalMs);
    }
    // Stopping: attempts in flight were interrupted (and released); what ended before is recorded.
    await Promise.all(attempts);
    if (ended.length > 0) await settle(ended.splice(0));
  }

  return {
    start(): void {
      if (running !== undefined) return;
      running = loop();
    },
    /** Looks for due items now instead of at the next poll. */
    wake: nudge,
    /** Stops claiming, interrupts deliveries in flight (they are released, not counted) and waits for the loop to end. */
    async stop(): Promise<void> {
      stopping = true;
      inFlight.abort();
      wakeUp?.();
      await running;
    },
  };
}
