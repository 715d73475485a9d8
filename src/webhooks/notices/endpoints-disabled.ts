import { createListeners, type Listeners } from '../../shared/listeners.js';
import type { SystemDisableReason } from './webhook-notices-repository.js';

/**
 * Tells this process, after the commit, that one of its settlements disabled
 * a webhook endpoint (a 410, or failing for 5 days): what the
 * `store_webhook_endpoints_disabled_total` counter counts. A disabling that
 * rolled back is never told. A listener that throws is not the settlement's
 * problem (it has committed): telling never throws.
 */
export type EndpointsDisabled = Pick<Listeners<[SystemDisableReason]>, 'tell' | 'subscribe'>;

export function createEndpointsDisabled(): EndpointsDisabled {
  return createListeners<[SystemDisableReason]>();
}
