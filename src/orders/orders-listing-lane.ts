import type { IncomingMessage, ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import type { FastifyBaseLogger } from 'fastify';
import type { KeyUsageRecorder } from '../api-keys/api-key-usage.js';
import type { ApiKeysService } from '../api-keys/api-keys-service.js';
import { bearerToken } from '../http/authentication.js';
import { clientHasCurrent, strongEtag, validatorHeaders } from '../http/conditional-get.js';
import { SECURITY_HEADER_ENTRIES } from '../http/hardening.js';
import type { PreRouting } from '../http/http-app.js';
import { rateLimitHeaderPairs, type RateLimiter } from '../http/rate-limit.js';
import { JSON_CONTENT_TYPE } from '../http/raw-responses.js';
import { requestIdFor } from '../http/request-id.js';
import type { OrdersService } from './orders-service.js';

export interface ListingLaneDependencies {
  apiKeys: Pick<ApiKeysService, 'authenticate'>;
  keyUsage: Pick<KeyUsageRecorder, 'touch'>;
  rateLimiter: RateLimiter;
  ordersService: Pick<OrdersService, 'openListing'>;
  logger: FastifyBaseLogger;
}

/** The one request the lane answers: the v1 listing, exactly this URL (a query string goes to Fastify). */
const LISTING_URL = '/v1/store/orders';
const LISTING_SCOPE = 'orders:read';
const NO_RATE_LIMIT_HEADERS: readonly string[] = [];
const SECURITY_HEADER_PAIRS = SECURITY_HEADER_ENTRIES.flat();
const CONTENT_TYPE_AND_SECURITY = ['content-type', JSON_CONTENT_TYPE, ...SECURITY_HEADER_PAIRS];
/** The levels at which Fastify logs every request (it logs them at info). */
const LOGS_REQUESTS = new Set(['trace', 'debug', 'info']);

/** A request that may carry a body is Fastify's to read (and to refuse). */
function mayHaveBody(req: IncomingMessage): boolean {
  const length = req.headers['content-length'];
  return req.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

/**
 * The v1 listing's fast lane, in front of Fastify's routing: the listing is
 * the hot path, and Fastify's per-request machinery (routing, hooks, reply
 * object) costs more than the answer itself. The lane answers
 * `GET /v1/store/orders` only when the answer is already in memory, and
 * then answers exactly as the Fastify route would (the same headers in the
 * same order, the same log lines; test/http/orders-listing-lane.test.ts
 * compares the two):
 *
 * - the key is valid and holds orders:read (through the same key cache as
 *   every request: revocation, expiry and scopes apply unchanged);
 * - the account's orders version, read for this request like the route
 *   reads it, is the one the cached listing was built at (so a write by any
 *   process shows in the very next list), or the client's ETag is current
 *   (304);
 * - the key's rate-limit budget is not spent.
 *
 * Anything else (a failure of any kind, a listing not cached yet or too
 * large to cache, HEAD, a query string, a body, a 401/403/429 to explain)
 * is handed to Fastify untouched, before anything was counted, logged or
 * sent; the route then handles it as always. So every request is counted,
 * logged and answered once, whichever path answers it.
 */
export function createListingLane({ apiKeys, keyUsage, rateLimiter, ordersService, logger }: ListingLaneDependencies): PreRouting {
  /** Answers and returns true, or returns false having done nothing. */
  async function answer(req: IncomingMessage, res: ServerResponse, token: string, startedAt: number | undefined): Promise<boolean> {
    const authentication = await apiKeys.authenticate(token);
    if (!authentication.ok || !authentication.principal.scopes.includes(LISTING_SCOPE)) return false;
    const { principal } = authentication;
    const listing = await ordersService.openListing(principal.accountId);
    const etag = strongEtag(listing.validator);
    const notModified = clientHasCurrent(req.headers['if-none-match'], etag);
    const body = listing.cached;
    if (!notModified && body === undefined) return false;
    // Counted only once the lane is sure to answer; a refused count changes no budget, so Fastify's 429 counts it again harmlessly.
    const decision = rateLimiter.consume(`key:${principal.keyId}`);
    if (decision !== undefined && !decision.allowed) return false;
    keyUsage.touch(principal.keyId);

    const id = requestIdFor(req);
    const limited = decision === undefined ? NO_RATE_LIMIT_HEADERS : rateLimitHeaderPairs(rateLimiter.policy, decision);
    if (notModified) {
      res.writeHead(304, ['x-request-id', id, ...limited, ...validatorHeaders(etag), ...SECURITY_HEADER_PAIRS]);
      res.end();
    } else {
      res.writeHead(200, ['x-request-id', id, ...limited, ...validatorHeaders(etag), ...CONTENT_TYPE_AND_SECURITY, 'content-length', String(body?.length ?? 0)]);
      res.end(body);
    }
    const status = notModified ? 304 : 200;
    if (startedAt !== undefined) logLikeFastify(req, res, id, status, startedAt);
    return true;
  }

  /** Fastify's two request log lines, with the same fields. */
  function logLikeFastify(req: IncomingMessage, res: ServerResponse, id: string, statusCode: number, startedAt: number): void {
    const log = logger.child({ requestId: id });
    log.info({ req }, 'incoming request');
    res.once('finish', () => log.info({ res: { statusCode }, responseTime: performance.now() - startedAt }, 'request completed'));
  }

  return (req, res, fastify) => {
    if (req.method !== 'GET' || req.url !== LISTING_URL || mayHaveBody(req)) {
      fastify(req, res);
      return;
    }
    const token = bearerToken(req.rawHeaders);
    if (typeof token !== 'string') {
      fastify(req, res);
      return;
    }
    answer(req, res, token, LOGS_REQUESTS.has(logger.level) ? performance.now() : undefined).then(
      (answered) => {
        if (!answered) fastify(req, res);
      },
      () => {
        // Nothing was sent (writing cannot fail before headers are out): the route answers, with the Error record the failure deserves.
        if (res.headersSent) res.destroy();
        else fastify(req, res);
      },
    );
  };
}
