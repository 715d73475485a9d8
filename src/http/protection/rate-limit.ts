import type { FastifyReply } from 'fastify';
import type { Limits } from '../../config/limits.js';
import { AppError } from '../../errors/errors.js';

/** The outcome of counting one request against a bucket. */
export interface RateLimitDecision {
  allowed: boolean;
  /** The bucket's quota per window. */
  limit: number;
  /** Requests still allowed in the current window after this one. */
  remaining: number;
  /** Whole seconds until the window resets (at least 1). */
  resetSeconds: number;
}

export interface RateLimiter {
  readonly policy: { requests: number; windowSeconds: number };
  /** Counts one request against `bucket`; undefined when rate limiting is off. */
  consume(bucket: string): RateLimitDecision | undefined;
}

/** The policy's name in the RateLimit headers: one policy applies to every bucket. */
const POLICY_NAME = 'default';
/** Past this many live buckets the oldest are forgotten, so address spraying cannot exhaust memory. */
const MAX_BUCKETS = 100_000;

/**
 * A fixed-window counter per bucket ("key:<id>" or "ip:<address>"), kept in
 * this process's memory: the hot path is a Map lookup and no I/O. With N
 * server processes a client can therefore get up to N × limit requests per
 * window (see SECURITY.md); every process enforces the limit on its own share.
 */
export function createRateLimiter(
  { requests, windowSeconds }: Limits['rateLimit'],
  now: () => number = () => Date.now(),
): RateLimiter {
  const windowMs = windowSeconds * 1000;
  // Insertion order is window-start order: a bucket is re-inserted when its
  // window restarts, so expired buckets are always at the front.
  const buckets = new Map<string, { start: number; count: number }>();

  function prune(at: number): void {
    for (const [key, bucket] of buckets) {
      if (at - bucket.start < windowMs && buckets.size <= MAX_BUCKETS) break;
      buckets.delete(key);
    }
  }

  return {
    policy: { requests, windowSeconds },
    consume(key) {
      if (requests === 0) return undefined;
      const at = now();
      prune(at);
      let bucket = buckets.get(key);
      if (bucket === undefined || at - bucket.start >= windowMs) {
        buckets.delete(key);
        bucket = { start: at, count: 0 };
        buckets.set(key, bucket);
      }
      const allowed = bucket.count < requests;
      if (allowed) bucket.count += 1;
      return {
        allowed,
        limit: requests,
        remaining: requests - bucket.count,
        resetSeconds: Math.max(1, Math.ceil((bucket.start + windowMs - at) / 1000)),
      };
    },
  };
}

/**
 * The draft-ietf-httpapi-ratelimit-headers fields (structured-field syntax):
 * `RateLimit-Policy: "default";q=100;w=60` and `RateLimit: "default";r=42;t=17`,
 * plus Retry-After when the request is refused.
 */
function rateLimitHeaders(policy: RateLimiter['policy'], decision: RateLimitDecision): Record<string, string> {
  const [policyName, policyValue, name, value] = rateLimitHeaderPairs(policy, decision);
  const headers: Record<string, string> = { [policyName]: policyValue, [name]: value };
  if (!decision.allowed) headers['retry-after'] = String(decision.resetSeconds);
  return headers;
}

/** The two RateLimit fields of an allowed request as name/value pairs in one flat list (node:http's writeHead form). */
export function rateLimitHeaderPairs(policy: RateLimiter['policy'], decision: RateLimitDecision): [string, string, string, string] {
  return [
    'ratelimit-policy',
    `"${POLICY_NAME}";q=${policy.requests};w=${policy.windowSeconds}`,
    'ratelimit',
    `"${POLICY_NAME}";r=${decision.remaining};t=${decision.resetSeconds}`,
  ];
}

/**
 * Counts one request against `bucket` and sets the RateLimit headers; throws
 * 429 once the bucket is spent. Used by requireApiKey and by the hardening hooks.
 */
export function enforceRateLimit(rateLimiter: RateLimiter | undefined, bucket: string, reply: FastifyReply): void {
  const decision = rateLimiter?.consume(bucket);
  if (rateLimiter === undefined || decision === undefined) return;
  const headers = rateLimitHeaders(rateLimiter.policy, decision);
  if (!decision.allowed) {
    throw new AppError('rate_limited', `Too many requests: the limit is ${decision.limit} per ${rateLimiter.policy.windowSeconds} s. Retry after ${decision.resetSeconds} s.`, headers);
  }
  reply.headers(headers);
}
