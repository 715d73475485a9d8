import { DeliveryError } from '../../delivery/delivery-error.js';
import type { Sender } from '../../delivery/delivery-engine.js';
import { AppError } from '../../errors/errors.js';
import { webhookTestEvent } from '../../events/event-records.js';
import type { Clock } from '../../shared/clock.js';
import type { ClaimedWebhookDelivery, WebhookDeliveryAttempt, WebhooksRepository } from '../webhooks-repository.js';

/** What a test event's one attempt came to. */
export interface TestOutcome {
  eventId: string;
  delivered: boolean;
  attempt: WebhookDeliveryAttempt;
}

/** A test event is never interrupted by shutdown: its own deadline (WEBHOOK_TIMEOUT_MS) bounds it. */
const NEVER_ABORTED = new AbortController().signal;

/**
 * A signed webhook.test event sent to one endpoint now (enabled or not: a
 * store checks a fix before enabling it again), by the same sender as every
 * delivery (signing, SSRF rules, the attempt's deadline); the answer is the
 * attempt as the delivery log records one. Nothing is stored or queued; a
 * failure is an outcome, not an error.
 */
export function createTestEvents({
  webhooksRepository,
  sender,
  clock,
}: {
  webhooksRepository: Pick<WebhooksRepository, 'findEndpointTarget'>;
  sender: Sender<ClaimedWebhookDelivery> & { close(): void };
  clock: Clock;
}) {
  async function send(accountId: number, endpointId: string): Promise<TestOutcome> {
    const target = await webhooksRepository.findEndpointTarget(accountId, endpointId);
    if (target === undefined) throw new AppError('webhook_endpoint_not_found', 'No webhook endpoint with this id exists.');
    const at = clock.now().toISOString();
    const event = webhookTestEvent(endpointId, at);
    const item: ClaimedWebhookDelivery = { id: 'test', attempts: 1, dueAt: at, endpointId, destination: endpointId, eventId: event.id, payload: event.payload, ...target };
    const started = performance.now();
    const outcome = await sender.deliver(item, NEVER_ABORTED).then(
      (record) => ({ delivered: true, record, error: null }),
      (error: unknown) => {
        if (!(error instanceof DeliveryError)) throw error;
        return { delivered: false, record: { statusCode: error.statusCode, exchange: error.exchange }, error: error.message };
      },
    );
    const exchange = outcome.record.exchange;
    return {
      eventId: event.id,
      delivered: outcome.delivered,
      attempt: {
        attempt: 1,
        at: clock.now().toISOString(),
        durationMs: Math.round(performance.now() - started),
        statusCode: outcome.record.statusCode ?? null,
        error: outcome.error,
        requestHeaders: { ...(exchange?.requestHeaders ?? {}) },
        response: exchange?.response === undefined ? null : { headers: { ...exchange.response.headers }, body: exchange.response.body },
      },
    };
  }

  return { send, close: () => sender.close() };
}
