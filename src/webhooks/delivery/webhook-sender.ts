import { injectTraceContext } from '../../shared/tracing.js';
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { DeliveryError, describeRequestFailure, parseRetryAfter } from '../../delivery/delivery-error.js';
import type { Sender } from '../../delivery/delivery-engine.js';
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

/** Connects to the address the policy checked, whatever the name would resolve to now (no DNS rebinding). */
function pinnedLookup(target: CheckedTarget): LookupFunction {
  return (_hostname, options, callback) => {
    if (options.all === true) callback(null, [{ address: target.address, family: target.family }]);
    else callback(null, target.address, target.family);
  };
}

/**
 * Sends a claimed delivery: the Event JSON, signed by the endpoint's secret
 * (and the previous one during a rotation's overlap), to the address the
 * SSRF policy checked just before. 2xx is success; anything else, redirects
 * included (never followed), a timeout or no connection is a failed attempt.
 */
export function createWebhookSender({ policy, secretBox, clock, timeoutMs }: { policy: UrlPolicy; secretBox: SecretBox; clock: Clock; timeoutMs: number }): Sender<ClaimedWebhookDelivery> & { close(): void } {
  const agents = { 'http:': new http.Agent({ keepAlive: true, maxSockets: 64 }), 'https:': new https.Agent({ keepAlive: true, maxSockets: 64 }) };
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
      let target: CheckedTarget;
      try {
        target = await policy.check(delivery.url);
      } catch (error) {
        if (error instanceof RefusedUrlError) throw new DeliveryError(error.message);
        throw error;
      }
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
        'content-length': String(body.length),
        'user-agent': WEBHOOK_USER_AGENT,
      });
      const timeout = AbortSignal.any([signal, AbortSignal.timeout(timeoutMs)]);
      const protocol = target.url.protocol === 'http:' ? 'http:' : 'https:';
      const request = protocol === 'http:' ? http.request : https.request;
      const { statusCode, retryAfter } = await new Promise<{ statusCode: number; retryAfter: string | undefined }>((resolve, reject) => {
        const outgoing = request(target.url, { method: 'POST', headers, agent: agents[protocol], lookup: pinnedLookup(target), signal: timeout }, (response) => {
          // Read and drop the body so the connection can be reused.
          response.resume();
          response.on('end', () => resolve({ statusCode: response.statusCode ?? 0, retryAfter: response.headers['retry-after'] }));
          response.on('error', reject);
        });
        outgoing.on('error', reject);
        outgoing.end(body);
      }).catch((error: unknown) => {
        throw new DeliveryError(describeRequestFailure(timeout.aborted && !signal.aborted ? Object.assign(new Error('timeout'), { name: 'TimeoutError' }) : error, signal, 'endpoint'));
      });
      if (statusCode >= 200 && statusCode <= 299) return { statusCode };
      const retryAfterMs = statusCode === 429 || statusCode === 503 ? parseRetryAfter(retryAfter, now.getTime()) : undefined;
      throw new DeliveryError(`The endpoint answered HTTP ${statusCode}.`, { statusCode, ...(retryAfterMs === undefined ? {} : { retryAfterMs }) });
    },
    close() {
      agents['http:'].destroy();
      agents['https:'].destroy();
    },
  };
}
