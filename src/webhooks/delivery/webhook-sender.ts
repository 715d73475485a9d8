import { injectTraceContext } from '../../shared/tracing.js';
import { Webhook } from 'standardwebhooks';
import { DeliveryError, describeRequestFailure, parseRetryAfter } from '../../delivery/delivery-error.js';
import { RECORDED_BODY_LIMIT, type AttemptExchange } from '../../delivery/delivery-queue.js';
import type { IncomingHttpHeaders } from 'node:http';
import type { Sender } from '../../delivery/delivery-engine.js';
import { createOutboundClient } from '../../delivery/outbound-http.js';
import type { Clock } from '../../shared/clock.js';
import type { SecretBox } from '../security/webhook-secrets.js';
import type { UrlPolicy } from '../../delivery/url-policy.js';
import type { ClaimedWebhookDelivery } from '../webhooks-repository.js';

const WEBHOOK_USER_AGENT = 'store-orders-webhooks/1 (+https://github.com/store-orders)';

/**
 * The headers of one delivery of `payload` (the Event JSON, sent as is):
 * Standard Webhooks' `webhook-id`, `webhook-timestamp` and
 * `webhook-signature` (one `v1,` signature per secret, space-separated), the
 * content type and our user agent. `store-orders listen` signs what it
 * forwards with the same function, so a receiver sees what an endpoint gets.
 */
export function webhookRequestHeaders(eventId: string, payload: string, secrets: readonly string[], at: Date): Record<string, string> {
  return {
    'webhook-id': eventId,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': secrets.map((secret) => new Webhook(secret).sign(eventId, at, payload)).join(' '),
    'content-type': 'application/json',
    'user-agent': WEBHOOK_USER_AGENT,
  };
}

/** Header values as text (a repeated header's values joined by ", ", as HTTP allows). */
function headerText(headers: IncomingHttpHeaders): Record<string, string> {
  const text: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) if (value !== undefined) text[name] = Array.isArray(value) ? value.join(', ') : value;
  return text;
}

/**
 * Sends a claimed delivery: the Event JSON, signed by the endpoint's secret
 * (and the previous one during a rotation's overlap), to the address the
 * SSRF policy checked just before. 2xx is success; anything else, redirects
 * included (never followed), a timeout or no connection is a failed attempt.
 */
export function createWebhookSender({ policy, secretBox, clock, timeoutMs }: { policy: UrlPolicy; secretBox: SecretBox; clock: Clock; timeoutMs: number }): Sender<ClaimedWebhookDelivery> & { close(): void } {
  // The SSRF rules checked in the client, inside each attempt's deadline, just before connecting to the address they checked.
  const client = createOutboundClient({ timeoutMs, policy });
  const opened = new Map<string, string>();

  async function open(sealed: string): Promise<string> {
    let secret = opened.get(sealed);
    if (secret === undefined) {
      secret = await secretBox.open(sealed);
      if (opened.size > 10_000) opened.clear();
      opened.set(sealed, secret);
    }
    return secret;
  }

  return {
    async deliver(delivery, signal) {
      const now = clock.now();
      const secrets = [await open(delivery.sealedSecret)];
      if (delivery.previousSealedSecret !== null && delivery.previousSecretUntil !== null && now.toISOString() < delivery.previousSecretUntil) {
        secrets.push(await open(delivery.previousSealedSecret));
      }
      const body = Buffer.from(delivery.payload, 'utf8');
      // traceparent too while tracing is on (the active span's context; nothing when off).
      const headers = injectTraceContext(webhookRequestHeaders(delivery.eventId, delivery.payload, secrets, now));
      const sent: AttemptExchange = { requestHeaders: headers };
      const answer = await client.post(delivery.url, { headers, body }, signal).catch((error: unknown) => {
        throw new DeliveryError(describeRequestFailure(error, signal, 'endpoint'), { exchange: sent });
      });
      const { statusCode, headers: answered } = answer;
      const exchange: AttemptExchange = {
        requestHeaders: headers,
        response: { headers: headerText(answered), body: answer.body.subarray(0, RECORDED_BODY_LIMIT).toString('utf8') },
      };
      if (statusCode >= 200 && statusCode <= 299) return { statusCode, exchange };
      const retryAfter = answered['retry-after'];
      const retryAfterMs = statusCode === 429 || statusCode === 503 ? parseRetryAfter(retryAfter, now.getTime()) : undefined;
      throw new DeliveryError(`The endpoint answered HTTP ${statusCode}.`, { statusCode, exchange, ...(retryAfterMs === undefined ? {} : { retryAfterMs }) });
    },
    close() {
      client.close();
    },
  };
}
