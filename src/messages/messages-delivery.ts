import { injectTraceContext } from '../shared/tracing.js';
import type { ClaimedMessage } from './messages-repository.js';

/** Hands one message to its destination; throws DeliveryError when it should be retried. */
export interface MessageDelivery {
  readonly kind: 'webhook' | 'record-only';
  deliver(message: ClaimedMessage, signal: AbortSignal): Promise<void>;
}

/** A failed attempt. The message is stored, so it never contains the webhook URL (it may hold a token). */
export class DeliveryError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DeliveryError';
  }
}

/**
 * Without a webhook there is nowhere to send a message: delivering it is
 * recording it as sent. It still goes through the queue, so the 202 and the
 * `queued` status mean the same thing in both set-ups.
 */
export const recordOnlyDelivery: MessageDelivery = {
  kind: 'record-only',
  async deliver() {},
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
        throw new DeliveryError(describeFetchFailure(error, signal));
      }
      // Read and drop the body so the connection can be reused.
      await response.arrayBuffer().catch(() => undefined);
      if (response.status < 200 || response.status > 299) throw new DeliveryError(`The webhook answered HTTP ${response.status}.`);
    },
  };
}

function describeFetchFailure(error: unknown, signal: AbortSignal): string {
  if (signal.aborted) return 'Delivery was interrupted by shutdown.';
  if (error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError')) return 'The webhook did not answer in time.';
  const cause = error instanceof Error ? (error.cause as { code?: unknown } | undefined) : undefined;
  return typeof cause?.code === 'string' ? `The webhook could not be reached (${cause.code}).` : 'The webhook could not be reached.';
}
