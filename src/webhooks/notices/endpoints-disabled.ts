import type { SystemDisableReason } from './webhook-notices-repository.js';

/**
 * Tells this process, after the commit, that one of its settlements disabled
 * a webhook endpoint (a 410, or failing for 5 days): what the
 * `store_webhook_endpoints_disabled_total` counter counts. A disabling that
 * rolled back is never told. A listener that throws is not the settlement's
 * problem (it has committed): telling never throws.
 */
export interface EndpointsDisabled {
  tell(reason: SystemDisableReason): void;
  /** Registers a listener; returns what unregisters it. */
  subscribe(listener: (reason: SystemDisableReason) => void): () => void;
}

export function createEndpointsDisabled(): EndpointsDisabled {
  const listeners = new Set<(reason: SystemDisableReason) => void>();
  return {
    tell(reason) {
      for (const listener of listeners) {
        try {
          listener(reason);
        } catch {
          // A lost count is the listener's loss, not a reason to fail a committed settlement.
        }
      }
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}
