import { injectTraceContext } from '../shared/tracing.js';
import { DeliveryError, describeRequestFailure } from '../delivery/delivery-error.js';
import type { AttemptRecord } from '../delivery/delivery-queue.js';
import type { ClaimedMessage } from './messages-repository.js';

/** Hands one message to its destination; throws DeliveryError when it should be retried. */
export interface MessageDelivery {
  readonly kind: 'webhook' | 'record-only';
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
 * POSTs `{id, accountId, message, createdAt}` as JSON to the webhook; any 2xx
 * is success, anything else (redirects included) or no answer within
 * `timeoutMs` is a failed attempt. Delivery is at least once, so each request
 * carries `Idempotency-Key: <message id>` for the receiver to drop repeats,
 * and, while tracing is on, the delivery span's `traceparent`.
 */
export function createWebhookDelivery({ url, timeoutMs }: { url: string; timeoutMs: number }): MessageDelivery {
  return {
    kind: 'webhook',
    async deliver(message, signal) {
      let response: Response;
      try {
        response = await fetch(url, {
          method: 'POST',
          redirect: 'manual',
          headers: injectTraceContext({
            'content-type': 'application/json',
            'idempotency-key': message.id,
            'user-agent': 'store-orders-messages/1',
          }),
          body: JSON.stringify({ id: message.id, accountId: message.accountId, message: message.message, createdAt: message.createdAt }),
          signal: AbortSignal.any([signal, AbortSignal.timeout(timeoutMs)]),
        });
      } catch (error) {
        throw new DeliveryError(describeRequestFailure(error, signal, 'webhook'));
      }
      // Read and drop the body so the connection can be reused.
      await response.arrayBuffer().catch(() => undefined);
      if (response.status < 200 || response.status > 299) throw new DeliveryError(`The webhook answered HTTP ${response.status}.`, { statusCode: response.status });
      return { statusCode: response.status };
    },
  };
}
