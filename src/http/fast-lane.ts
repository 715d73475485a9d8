import type { IncomingMessage, ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import type { FastifyBaseLogger } from 'fastify';
import type { ApiKeyScope } from '../api-keys/api-key-scopes.js';
import type { ApiKeyPrincipal } from '../api-keys/api-keys-repository.js';
import type { KeyUsageRecorder } from '../api-keys/api-key-usage.js';
import type { ApiKeysService } from '../api-keys/api-keys-service.js';
import type { RequestLogRecorder } from '../request-logs/request-log-recorder.js';
import type { CapturedRequest } from '../request-logs/request-log-buffer.js';
import { bearerKey, principalInScope } from '../api/http/authentication.js';
import { clientHasCurrent, strongEtag, validatorHeaders } from '../api/http/conditional-get.js';
import { SECURITY_HEADER_ENTRIES } from './protection/hardening.js';
import type { PreRouting, RootSampling } from './http-app.js';
import { JSON_CONTENT_TYPE } from './media-types.js';
import { requestLineWriter } from './logging.js';
import { rateLimitHeaderPairs, type RateLimiter } from './protection/rate-limit.js';
import { requestIdFor } from './request-id.js';

/** What the lane may answer with: the representation's validator (its strong ETag's opaque part) and its bytes when they are in memory. */
export interface InMemoryRepresentation {
  readonly validator: string;
  readonly cached: Buffer | undefined;
}

export interface FastLaneOptions {
  /** The one URL answered, exactly (a query string goes to Fastify). */
  url: string;
  /** The scope its route declares. */
  scope: ApiKeyScope;
  apiKeys: Pick<ApiKeysService, 'authenticate'>;
  keyUsage: Pick<KeyUsageRecorder, 'touch'>;
  rateLimiter: RateLimiter;
  logger: FastifyBaseLogger;
  /** The representation for a key that may read it, as the route would open it. */
  open(principal: ApiKeyPrincipal): Promise<InMemoryRepresentation>;
  /**
   * The request logs' buffer when REQUEST_LOGS is on (the lane's requests are logged as the route's are), and how the route
   * reads the client's address. Its capture must copy the request's fields before it returns: the lane fills one object
   * again for each request.
   */
  requestLogs?: { recorder: Pick<RequestLogRecorder, 'capture' | 'now'>; clientAddress(req: IncomingMessage): string | undefined };
  /** While tracing is on: the lane answers only requests that will not be traced (a traced one gets its span in Fastify). */
  sampling?: RootSampling;
}

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
 * A fast lane in front of Fastify's routing for one hot GET, whose answer is
 * usually in memory: Fastify's per-request machinery (routing, hooks, reply
 * object) costs more than the answer itself. It answers only when the answer
 * is already in memory, and then exactly as the route would (the same headers
 * in the same order, the same log lines, through the same helpers:
 * checkKey's halves, the rate limiter, the validator and security headers, the request
 * log lines; test/http/fast-lane.test.ts compares the two):
 *
 * - the key is valid and holds the route's scope;
 * - the representation is in memory at its current validator, or the
 *   client's ETag is current (304);
 * - the key's rate-limit budget is not spent.
 *
 * Anything else (a failure of any kind, nothing in memory, HEAD, a query
 * string, a body, a 401/403/429 to explain) is handed to Fastify untouched,
 * before anything was counted, logged or sent; the route then handles it as
 * always. So every request is counted, logged and answered once, whichever
 * path answers it.
 */
export function createFastLane({ url, scope, apiKeys, keyUsage, rateLimiter, logger, open, requestLogs, sampling }: FastLaneOptions): PreRouting {
  const writeLine = requestLineWriter(logger);
  /** Every request's capture, in one object filled again each time: the recorder copies its fields at once (request-log-buffer.ts), and an object per request cost the collector. */
  const captured: CapturedRequest = { at: 0, method: 'GET', url, status: 200, durationMs: 0, requestId: '', accountId: 0, keyId: undefined, clientAddress: undefined, userAgent: undefined, errorBody: undefined };
  /** Answers and returns true, or returns false having done nothing. */
  async function answer(
    req: IncomingMessage,
    res: ServerResponse,
    answered: (res: ServerResponse, route: string) => void,
    startedAt: number | undefined,
    logsRequests: boolean,
  ): Promise<boolean> {
    // checkKey's steps, in its synchronous halves: one promise fewer per request.
    const token = bearerKey(req.rawHeaders);
    if (token === undefined) return false;
    const principal = principalInScope(await apiKeys.authenticate(token), scope);
    if (principal === undefined) return false;
    const { validator, cached: body } = await open(principal);
    const etag = strongEtag(validator);
    const notModified = clientHasCurrent(req.headers['if-none-match'], etag);
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
    answered(res, url);
    if (requestLogs !== undefined && startedAt !== undefined) {
      // A few fields into the buffer: the stored form is made when the batch is written.
      const durationMs = performance.now() - startedAt;
      captured.at = requestLogs.recorder.now() - durationMs;
      captured.status = notModified ? 304 : 200;
      captured.durationMs = durationMs;
      captured.requestId = id;
      captured.accountId = principal.accountId;
      captured.keyId = principal.keyId;
      captured.clientAddress = requestLogs.clientAddress(req);
      captured.userAgent = req.headers['user-agent'];
      requestLogs.recorder.capture(captured);
    }
    if (startedAt !== undefined && logsRequests) {
      const statusCode = notModified ? 304 : 200;
      res.once('finish', () => writeLine(id, req, statusCode, performance.now() - startedAt));
    }
    return true;
  }

  return (req, res, fastify, answered) => {
    if (req.method !== 'GET' || req.url !== url || mayHaveBody(req)) {
      fastify(req, res);
      return;
    }
    // While tracing is on, a request to be traced gets its span in Fastify; one that is not may be answered here.
    const traced = sampling?.decide(req);
    if (traced === undefined && sampling !== undefined) {
      fastify(req, res);
      return;
    }
    if (traced === true) {
      sampling?.carry(true, () => fastify(req, res));
      return;
    }
    // Handed on after all: not traced there either (the decision is not taken twice).
    const route = sampling === undefined ? fastify : (req: IncomingMessage, res: ServerResponse) => sampling.carry(false, () => fastify(req, res));
    const logsRequests = LOGS_REQUESTS.has(logger.level);
    answer(req, res, answered, logsRequests || requestLogs !== undefined ? performance.now() : undefined, logsRequests).then(
      (done) => {
        if (!done) route(req, res);
      },
      () => {
        // Nothing was sent (writing cannot fail before headers are out): the route answers, with the Error record the failure deserves.
        if (res.headersSent) res.destroy();
        else route(req, res);
      },
    );
  };
}
