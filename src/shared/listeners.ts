/**
 * A set of in-process listeners told of something that already happened (a
 * commit): telling never throws, since a listener's failure is not the
 * teller's problem (what it lost, a wake or a count, the listener's owner
 * makes up for: the engine's poll, a metric's next increment).
 */
export interface Listeners<A extends unknown[] = []> {
  tell(...args: A): void;
  /** Registers a listener; returns what unregisters it. */
  subscribe(listener: (...args: A) => void): () => void;
  readonly size: number;
}

export function createListeners<A extends unknown[] = []>(): Listeners<A> {
  const listeners = new Set<(...args: A) => void>();
  return {
    tell(...args) {
      for (const listener of listeners) {
        try {
          listener(...args);
        } catch {
          // See above: the teller has committed already.
        }
      }
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    get size() {
      return listeners.size;
    },
  };
}
