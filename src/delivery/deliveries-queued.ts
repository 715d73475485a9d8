import { createListeners } from '../shared/listeners.js';

/**
 * Tells this process's delivery engines, right after a commit, that it
 * queued webhook deliveries: the hand-off that lets a change reach its
 * endpoint without waiting for a poll. Announcements within one turn of the
 * event loop are told once (a group commit of 64 cancels wakes the engine
 * once, not 64 times). A listener that throws is not the committer's
 * problem: announcing never throws.
 */
export interface DeliveriesQueued {
  /** Called after the commit that queued deliveries (or when it is certain to have committed by the time listeners run). */
  announce(): void;
  /** Registers a listener; returns what unregisters it. */
  subscribe(listener: () => void): () => void;
}

export function createDeliveriesQueued(): DeliveriesQueued {
  // A wake that failed leaves the delivery to the engine's poll.
  const listeners = createListeners();
  let scheduled = false;
  const tell = () => {
    scheduled = false;
    listeners.tell();
  };
  return {
    announce() {
      if (scheduled || listeners.size === 0) return;
      scheduled = true;
      queueMicrotask(tell);
    },
    subscribe: listeners.subscribe,
  };
}
