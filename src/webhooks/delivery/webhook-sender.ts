import { injectTraceContext } from '../../shared/tracing.js';
import { Webhook } from 'standardwebhooks';
import { DeliveryError, describeRequestFailure, parseRetryAfter } from '../../delivery/delivery-error.js';
import { RECORDED_BODY_LIMIT, type AttemptExchange } from '../../delivery/delivery-queue.js';
import type { IncomingHttpHeaders } from 'node:http';
import type { Sender } from '../../delivery/delivery-engine.js';
import { createOutboundClient, type OutboundTarget } from '../../delivery/outbound-http.js';
import type { Clock } from '../../shared/clock.js';
import type { SecretBox } from '../security/webhook-secrets.js';
import { RefusedUrlError, type CheckedTarget, type UrlPolicy } from '../security/webhook-url-policy.js';
import type { ClaimedWebhookDelivery } from '../webhooks-repository.js';

const WEBHOOK_USER_AGENT = 'store-orders-webhooks/1 (+https://github.com/store-orders)';

/** The Standard Webhooks headers of one delivery: one `v1,` signature per secret, space-separated. */
function signedHeaders(eventId: string, payload: string, secrets: readonly string[], at: Date): Record<string, string> {
  return {
    'webhook-id': eventId,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': secrets.map((secret) => new Webhook(secret).sign(eventId, at, payload)).join(' '),
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
  const client = createOutboundClient({ timeoutMs });
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

  /** The endpoint's address, checked by the SSRF policy just before sending (inside the attempt's deadline). */
  async function checkedTarget(url: string): Promise<OutboundTarget> {
    let target: CheckedTarget;
    try {
      target = await policy.check(url);
    } catch (error) {
      if (error instanceof RefusedUrlError) throw new DeliveryError(error.message);
      throw error;
    }
    return { url: target.url, address: { address: target.address, family: target.family } };
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
      const headers = injectTraceContext({
        ...signedHeaders(delivery.eventId, delivery.payload, secrets, now),
        'content-type': 'application/json',
        'user-agent': WEBHOOK_USER_AGENT,
      });
      const sent: AttemptExchange = { requestHeaders: headers };
      const answer = await client.post(() => checkedTarget(delivery.url), { headers, body }, signal).catch((error: unknown) => {
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
