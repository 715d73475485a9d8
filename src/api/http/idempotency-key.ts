import { createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { IdempotencyClaim, IdempotencyCompletion, StoredResponse } from '../../idempotency/idempotency-repository.js';
import type { IdempotencyService } from '../../idempotency/idempotency-service.js';
import { JSON_CONTENT_TYPE } from '../../http/media-types.js';
import { principalOf } from './authentication.js';

/** The response headers a replay repeats besides the body. */
const REPLAYED_HEADERS = ['location'] as const;

interface HeldClaim {
  claim: IdempotencyClaim;
  /** Completed by the write's own transaction: nothing left to store. */
  stored: boolean;
}

const held = new WeakMap<FastifyRequest, HeldClaim>();

/** JSON with object keys sorted at every depth: equal bodies give equal text whatever their key order and spacing. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const entries = Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${canonicalJson(item)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** What makes two requests "the same request" for a key: method, path and canonical body. */
function fingerprintOf(request: FastifyRequest): string {
  const path = request.url.split('?')[0] ?? '';
  return createHash('sha256').update(`${request.method}\n${path}\n${canonicalJson(request.body ?? null)}`).digest('hex');
}

/**
 * The hooks of an operation that honours Idempotency-Key (behind
 * requireApiKey, after its body is parsed): preValidation claims the key or
 * answers with the first response; onSend keeps a response that its write
 * did not already keep (refusals), or releases the key after a 5xx or 429.
 */
export function idempotencyKeyHooks(idempotency: IdempotencyService) {
  return {
    preValidation: async (request: FastifyRequest, reply: FastifyReply) => {
      const key = request.headers['idempotency-key'];
      if (key === undefined) return;
      // A repeated header is one value joined by commas (RFC 9110 §5.3), which the key check then judges.
      const start = await idempotency.begin(principalOf(request).accountId, Array.isArray(key) ? key.join(', ') : key, fingerprintOf(request));
      if (start.kind === 'claimed') {
        held.set(request, { claim: start.claim, stored: false });
        return;
      }
      const { status, headers, body } = start.response;
      return reply.code(status).headers({ ...headers, 'idempotent-replayed': 'true' }).type(JSON_CONTENT_TYPE).send(body);
    },
    onSend: async (request: FastifyRequest, reply: FastifyReply, payload: unknown) => {
      const claimed = held.get(request);
      if (claimed === undefined || claimed.stored) return payload;
      held.delete(request);
      await idempotency.finish(claimed.claim, responseOf(reply.statusCode, reply, String(payload)));
      return payload;
    },
  };
}

function responseOf(status: number, reply: FastifyReply, body: string): StoredResponse {
  const headers: Record<string, string> = {};
  for (const name of REPLAYED_HEADERS) {
    const value = reply.getHeader(name);
    if (typeof value === 'string') headers[name] = value;
  }
  return { status, headers, body };
}

/**
 * The completion a write hands to storage so that the request's claim (if
 * any) completes in the write's transaction, with the response `render`
 * makes of the result; call `stored` once the write has committed.
 */
export function idempotencyCompletion<T>(
  request: FastifyRequest,
  render: (result: T) => { status: number; headers: Record<string, string>; body: string },
): { completion?: IdempotencyCompletion<T>; stored: () => void } {
  const claimed = held.get(request);
  if (claimed === undefined) return { stored: () => undefined };
  return {
    completion: { claim: claimed.claim, respond: render },
    stored: () => {
      claimed.stored = true;
    },
  };
}
