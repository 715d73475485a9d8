import { RefusedUrlError } from './url-policy.js';
import type { AttemptExchange } from './delivery-queue.js';

/**
 * A failed attempt. Its message is stored and logged, so it never contains
 * the destination's URL (which may hold a token) or any secret.
 */
export class DeliveryError extends Error {
  /** The receiver's HTTP status, when it answered. */
  readonly statusCode: number | undefined;
  /** How long the receiver asked to be left alone (Retry-After on 429/503). */
  readonly retryAfterMs: number | undefined;
  /** What was sent and what came back, when the sender records it. */
  readonly exchange: AttemptExchange | undefined;

  constructor(message: string, { statusCode, retryAfterMs, exchange }: { statusCode?: number; retryAfterMs?: number; exchange?: AttemptExchange } = {}) {
    super(message);
    this.name = 'DeliveryError';
    this.statusCode = statusCode;
    this.retryAfterMs = retryAfterMs;
    this.exchange = exchange;
  }
}

/** The longest Retry-After honoured: a receiver cannot park a delivery for longer than the retry schedule's last step. */
const RETRY_AFTER_MAX_MS = 24 * 60 * 60 * 1000;

/** Retry-After as delta-seconds or an HTTP date (RFC 9110 §10.2.3), in ms from `now`; undefined when absent or unreadable. */
export function parseRetryAfter(value: string | undefined, now: number): number | undefined {
  if (value === undefined) return undefined;
  const text = value.trim();
  if (/^\d{1,10}$/.test(text)) return Math.min(RETRY_AFTER_MAX_MS, Number(text) * 1000);
  const date = Date.parse(text);
  if (Number.isNaN(date)) return undefined;
  return Math.min(RETRY_AFTER_MAX_MS, Math.max(0, date - now));
}

/** A short, URL-free reason for a request that got no answer. */
export function describeRequestFailure(error: unknown, signal: AbortSignal, noun: string): string {
  if (signal.aborted) return 'Delivery was interrupted by shutdown.';
  if (error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError')) return `The ${noun} did not answer in time.`;
  if (error instanceof DeliveryError) return error.message;
  // The reason alone: the hint for people creating an endpoint is not the attempt's business.
  if (error instanceof RefusedUrlError) return error.reason;
  const code = error instanceof Error ? ((error as { code?: unknown }).code ?? (error.cause as { code?: unknown } | undefined)?.code) : undefined;
  return typeof code === 'string' ? `The ${noun} could not be reached (${code}).` : `The ${noun} could not be reached.`;
}
