import { createHmac, timingSafeEqual } from 'node:crypto';
import { parseJsonExact } from './exact-json.js';

/** A delivery that failed verification: wrong secret, altered body, missing headers or a stale timestamp. */
export class WebhookVerificationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WebhookVerificationError';
  }
}

/** An Event record as delivered; ids in `data` (order and pet ids) are bigint, exactly. */
export interface WebhookEvent {
  id: string;
  type: string;
  createdAt: string;
  data: Record<string, unknown>;
}

export interface VerifyWebhookOptions {
  /** How far the webhook-timestamp may be from now, in seconds (default 300, as Standard Webhooks libraries). */
  toleranceSeconds?: number;
  /** Now, in ms since the epoch (for tests). */
  now?: number;
}

type HeaderSource = Headers | Record<string, string | string[] | undefined>;

function header(headers: HeaderSource, name: string): string | undefined {
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined;
  const value = (headers as Record<string, string | string[] | undefined>)[name];
  return Array.isArray(value) ? value[0] : value;
}

/**
 * Verifies a Store Orders webhook delivery (Standard Webhooks: `webhook-id`,
 * `webhook-timestamp`, `webhook-signature`) against the endpoint's secret
 * (`whsec_…`) and returns the Event with exact int64 ids. Pass the raw body,
 * before any JSON parsing. During a secret rotation either secret verifies.
 * Throws WebhookVerificationError.
 */
export function verifyWebhook(body: string, headers: HeaderSource, secret: string, { toleranceSeconds = 300, now = Date.now() }: VerifyWebhookOptions = {}): WebhookEvent {
  const id = header(headers, 'webhook-id');
  const timestamp = header(headers, 'webhook-timestamp');
  const signatures = header(headers, 'webhook-signature');
  if (id === undefined || timestamp === undefined || signatures === undefined) throw new WebhookVerificationError('Missing webhook-id, webhook-timestamp or webhook-signature.');
  if (!/^\d{1,12}$/.test(timestamp) || Math.abs(now / 1000 - Number(timestamp)) > toleranceSeconds) {
    throw new WebhookVerificationError('The webhook-timestamp is missing, malformed or too far from now.');
  }
  const key = Buffer.from(secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : secret, 'base64');
  const expected = createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest();
  const matches = signatures.split(' ').some((entry) => {
    const [version, value = ''] = entry.split(',', 2);
    const given = Buffer.from(value, 'base64');
    return version === 'v1' && given.length === expected.length && timingSafeEqual(given, expected);
  });
  if (!matches) throw new WebhookVerificationError('No signature matches: wrong secret or an altered body.');
  const event = parseJsonExact(body, new Set(['id', 'petId'])) as WebhookEvent;
  if (event.id !== id) throw new WebhookVerificationError('The body is not the event the webhook-id names.');
  return event;
}
