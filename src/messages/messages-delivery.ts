import { injectTraceContext } from '../shared/tracing.js';
import { DeliveryError, describeRequestFailure } from '../delivery/delivery-error.js';
import { anyAddressPolicy, createOutboundClient } from '../delivery/outbound-http.js';
import { systemResolver } from '../delivery/url-policy.js';
import type { AttemptRecord } from '../delivery/delivery-queue.js';
import type { ClaimedMessage } from './messages-repository.js';

/** Hands one message to its destination; throws DeliveryError when it should be retried. */
export interface MessageDelivery {
  /** Posted to the operator's MESSAGES_WEBHOOK_URL, or only recorded as sent (the start-up log line says which). */
  readonly kind: 'url' | 'record-only';
  deliver(message: ClaimedMessage, signal: AbortSignal): Promise<AttemptRecord>;
}

/**
 * Without a webhook there is nowhere to send a message: delivering it is
 * recording it as sent. It still goes through the queue, so the 202 and the
 * `queued` status mean the same thing in both set-ups.
 */
export const recordOnlyDelivery: MessageDelivery = {
  kind: 'record-only',
  async deliver() {
    return {};
  },
};

/**
 * POSTs `{id, accountId, message, createdAt}` as JSON to the operator's
 * MESSAGES_WEBHOOK_URL through the one outbound client (delivery/), the same
 * deadline, body bound and address pinning as every webhook endpoint; any 2xx is success, anything else (redirects
 * included) or no complete answer within `timeoutMs` is a failed attempt. Delivery is at least once, so each request
 * carries `Idempotency-Key: <message id>` for the receiver to drop repeats,
 * and, while tracing is on, the delivery span's `traceparent`.
 */
export function createMessagesUrlDelivery({ url, timeoutMs }: { url: string; timeoutMs: number }): MessageDelivery {
  // The operator's own URL (configuration, not a tenant's): any address, resolved once and pinned by the same bounded client.
  const client = createOutboundClient({ timeoutMs, policy: anyAddressPolicy(systemResolver) });
  return {
    kind: 'url',
    async deliver(message, signal) {
      const body = Buffer.from(JSON.stringify({ id: message.id, accountId: message.accountId, message: message.message, createdAt: message.createdAt }));
      const headers = injectTraceContext({
        'content-type': 'application/json',
        'idempotency-key': message.id,
        'user-agent': 'store-orders-messages/1',
      });
      const { statusCode } = await client.post(url, { headers, body }, signal).catch((error: unknown) => {
        throw new DeliveryError(describeRequestFailure(error, signal, 'webhook'));
      });
      if (statusCode < 200 || statusCode > 299) throw new DeliveryError(`The webhook answered HTTP ${statusCode}.`, { statusCode });
      return { statusCode };
    },
  };
}
