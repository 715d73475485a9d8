import type { Outcome } from './delivery-queue.js';

/**
 * Each destination's window: how many attempts it may have in flight here.
 * A destination starts at INITIAL_WINDOW; an attempt answered 2xx within
 * FAST_ATTEMPT_MS widens it by one (up to perDestination), a slower success
 * narrows it by one (down to SLOW_WINDOW), a failure halves it (down to 1).
 * So a fast receiver with a backlog reaches its full window within tens of
 * deliveries, while a slow, silent or failing one holds a few slots at
 * most, however many of its deliveries are due, and however many endpoints
 * one store has.
 */
const INITIAL_WINDOW = 4;
const FAST_ATTEMPT_MS = 1000;
const SLOW_WINDOW = 2;

/** A delivery engine's attempts in flight per destination, and each destination's window. */
export function createSlots(perDestination: number) {
  const inFlight = new Map<string, number>();
  /** Each destination's window, once an attempt to it ended. */
  const windows = new Map<string, number>();
  const initialWindow = Math.min(INITIAL_WINDOW, perDestination);
  return {
    inFlight: inFlight as ReadonlyMap<string, number>,
    windows: windows as ReadonlyMap<string, number>,
    /** The window of a destination no attempt has ended for yet. */
    initialWindow,
    take(destination: string): void {
      inFlight.set(destination, (inFlight.get(destination) ?? 0) + 1);
    },
    give(destination: string): void {
      const left = (inFlight.get(destination) ?? 1) - 1;
      if (left === 0) inFlight.delete(destination);
      else inFlight.set(destination, left);
    },
    /** Widens or narrows the destination's window by how its attempt went. */
    adjust(destination: string, outcome: Outcome): void {
      const window = windows.get(destination) ?? initialWindow;
      const fast = (outcome.settlement.durationMs ?? Number.POSITIVE_INFINITY) < FAST_ATTEMPT_MS;
      let next: number;
      if (!outcome.sent) next = Math.max(1, Math.floor(window / 2));
      else if (fast) next = Math.min(perDestination, window + 1);
      else next = Math.max(Math.min(SLOW_WINDOW, window), window - 1);
      windows.set(destination, next);
    },
  };
}
