import type { IncomingMessage } from 'node:http';
import { isIPv6 } from 'node:net';
import type { FastifyInstance } from 'fastify';
import type { ApiKeysService } from '../api-keys/api-keys-service.js';
import { bearerKey } from '../api/http/authentication.js';
import type { RequestLogRecorder } from '../request-logs/request-log-recorder.js';
import { trustedProxies } from './protection/connection-bounds.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The body of a non-2xx answer, kept by the onSend hook for the request's log. */
    answeredError: string | undefined;
  }
}

export interface RequestLogCaptureOptions {
  recorder: Pick<RequestLogRecorder, 'capture' | 'captureWhenKnown' | 'now'>;
  /** Whom a key names when it failed (expired, revoked): the request is logged for that account all the same. */
  apiKeys: Pick<ApiKeysService, 'identify'>;
}

/**
 * Captures every request of the host that names an account by its key into
 * the request logs' buffer (request-logs/request-log-recorder.ts), once its
 * response is sent: the authenticated key's account, or, when the key
 * failed (unknown to this request's scope, expired, revoked, a 404 route),
 * the account the key belongs to, looked up after the answer (an unknown
 * key logs nothing). Only fields the request already holds are captured; a
 * non-2xx answer's body (the Error record) is kept by onSend as the string
 * it was serialized to. Never a header other than User-Agent.
 */
export function installRequestLogCapture(app: FastifyInstance, { recorder, apiKeys }: RequestLogCaptureOptions): void {
  app.decorateRequest('answeredError', undefined);
  // Callback hooks, as createHttpApp's: no promise per request.
  app.addHook('onSend', (request, reply, payload, done) => {
    if (reply.statusCode >= 300 && typeof payload === 'string') request.answeredError = payload;
    done(null, payload);
  });
  app.addHook('onResponse', (request, reply, done) => {
    const durationMs = reply.elapsedTime;
    const captured = {
      at: recorder.now() - durationMs,
      method: request.method,
      url: request.url,
      status: reply.statusCode,
      durationMs,
      requestId: request.id,
      clientAddress: request.ip,
      userAgent: request.headers['user-agent'],
      errorBody: request.answeredError,
    };
    // Set by requireApiKey once the key authenticated, even when it lacked the route's scope.
    const principal = (request as { principal?: { keyId: number; accountId: number } | null }).principal ?? null;
    if (principal !== null) {
      recorder.capture({ ...captured, accountId: principal.accountId, keyId: principal.keyId });
    } else {
      const token = bearerKey(request.raw.rawHeaders);
      if (token !== undefined) {
        // The key's owner unreadable (the database down): that request goes unlogged.
        recorder.captureWhenKnown(apiKeys.identify(token).then((owner) => (owner === undefined ? undefined : { ...captured, accountId: owner.accountId, keyId: owner.keyId })));
      }
    }
    done();
  });
}

/**
 * The client address of a request as Fastify's request.ip reads it (the
 * socket's, or with TRUST_PROXY the first hop of X-Forwarded-For, from the
 * right, that is not a trusted proxy), for a path in front of Fastify.
 */
export function clientAddressReader(trustProxy: readonly string[]): (req: IncomingMessage) => string | undefined {
  // The socket's own getter (Node keeps the peer's address on the socket once read). A copy kept on the socket under a
  // symbol of ours saved the getter's 0.08 µs, but the listing with request logs on cost about 1 % more CPU per request
  // with it than without it (BENCHMARKS.md, sixteenth session): no property of ours on Node's objects on this path.
  if (trustProxy.length === 0) return (req) => req.socket.remoteAddress;
  const trusted = trustedProxies(trustProxy);
  const isTrusted = (address: string) => {
    const plain = address.startsWith('::ffff:') && address.includes('.') ? address.slice(7) : address;
    try {
      return trusted.check(plain, isIPv6(plain) ? 'ipv6' : 'ipv4');
    } catch {
      return false;
    }
  };
  return (req) => {
    let address = req.socket.remoteAddress;
    const forwarded = req.headers['x-forwarded-for'];
    if (address === undefined || typeof forwarded !== 'string') return address;
    const hops = forwarded.split(',').map((hop) => hop.trim());
    for (let i = hops.length - 1; i >= 0 && isTrusted(address); i--) address = hops[i] ?? address;
    return address;
  };
}
